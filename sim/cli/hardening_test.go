package cli

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/sim"
)

// hardeningCase is one row of issue 13's table: a bad input, what simrun must answer (the exit
// code and a phrase naming the problem), and what must hold afterwards (nothing written, lost
// or overwritten).
type hardeningCase struct {
	row   string
	setup func(t *testing.T, dir string) []string // prepares files; returns the arguments
	code  int
	says  string
	after func(t *testing.T, dir, out string)
}

// writeFile writes data to name in dir and returns its path.
func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

// scheduleFile writes seed 3's schedule to dir/name.
func scheduleFile(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := sim.NewSchedule(3, nil).MarshalIndent()
	require.NoError(t, err)
	return writeFile(t, dir, name, data)
}

// minimalLogLines is a session log the checks accept, line by line (newlines kept).
func minimalLogLines(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("testdata/check/good/minimal.jsonl")
	require.NoError(t, err)
	return strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
}

func args(a ...string) func(*testing.T, string) []string {
	return func(*testing.T, string) []string { return a }
}

func unchanged(path string, want []byte) func(*testing.T, string, string) {
	return func(t *testing.T, dir, _ string) {
		got, err := os.ReadFile(filepath.Join(dir, path))
		require.NoError(t, err)
		assert.Equal(t, want, got, "the input is left as it was")
	}
}

func notWritten(paths ...string) func(*testing.T, string, string) {
	return func(t *testing.T, dir, _ string) {
		for _, p := range paths {
			assert.NoFileExists(t, filepath.Join(dir, p))
		}
	}
}

func hardeningCases() []hardeningCase {
	var scheduleBytes []byte
	return []hardeningCase{
		{row: "run -seeds 9223372036854775807 runs past the last seed from -start 2",
			setup: args("run", "-seeds", "9223372036854775807", "-start", "2"), code: exitUsage,
			says: "-start 2 with -seeds 9223372036854775807 runs past the largest seed 9223372036854775807: start at most at 1"},
		{row: "run -seeds 1000000000 runs past the last seed when started near it",
			setup: args("run", "-seeds", "1000000000", "-start", "9223372036000000000"), code: exitUsage,
			says: "runs past the largest seed"},
		{row: "a schedule file over the size limit is refused from its size, before it is read",
			setup: func(t *testing.T, dir string) []string {
				path := filepath.Join(dir, "huge.json")
				f, err := os.Create(path)
				require.NoError(t, err)
				require.NoError(t, f.Truncate(430<<20)) // sparse: 430 MB in size, nothing on disk
				require.NoError(t, f.Close())
				return []string{"repro", path}
			}, code: exitUsage, says: "huge.json is 430.0 MiB, over the 4.0 MiB limit"},
		{row: "shrink refuses an oversized schedule file too",
			setup: func(t *testing.T, dir string) []string {
				return []string{"shrink", writeFile(t, dir, "big.json", make([]byte, scheduleFileBytesMax+1))}
			}, code: exitUsage, says: "over the 4.0 MiB limit"},
		{row: "policy -agents 1000 -requests 1000000", setup: args("policy", "-agents", "1000", "-requests", "1000000"),
			code: exitUsage, says: "-requests 1000000: at most 1000 followups per agent"},
		{row: "policy -agents 1000 -requests 1000", setup: args("policy", "-agents", "1000", "-requests", "1000"),
			code: exitUsage, says: "is 1000000 turns per herd, over the 10000"},
		{row: "policy -agents 1 -seeds 100000000", setup: args("policy", "-agents", "1", "-seeds", "100000000"),
			code: exitUsage, says: "-seeds 100000000: at most 1000 seeds per policy"},
		{row: "repro in.json -log in.json",
			setup: func(t *testing.T, dir string) []string {
				path := scheduleFile(t, dir, "in.json")
				scheduleBytes, _ = os.ReadFile(path)
				return []string{"repro", path, "-log", path}
			}, code: exitUsage, says: "in.json is the schedule file being read: it would be overwritten",
			after: func(t *testing.T, dir, out string) { unchanged("in.json", scheduleBytes)(t, dir, out) }},
		{row: "repro -seed 3 -log x -schedule x",
			setup: func(t *testing.T, dir string) []string {
				x := filepath.Join(dir, "x")
				return []string{"repro", "-seed", "3", "-log", x, "-schedule", filepath.Join(dir, ".", "x")}
			}, code: exitUsage, says: "-log and -schedule both name", after: notWritten("x")},
		{row: "shrink -o onto its own input",
			setup: func(t *testing.T, dir string) []string {
				path := scheduleFile(t, dir, "good.json")
				scheduleBytes, _ = os.ReadFile(path)
				return []string{"shrink", "-o", path, path}
			}, code: exitUsage, says: "good.json is the schedule file being read", after: func(t *testing.T, dir, out string) { unchanged("good.json", scheduleBytes)(t, dir, out) }},
		{row: "shrink -property nope good.json",
			setup: func(t *testing.T, dir string) []string {
				return []string{"shrink", "-property", "nope", scheduleFile(t, dir, "good.json")}
			}, code: exitUsage, says: `-property "nope" is not a property ('simrun properties' lists them)`},
		{row: "run -seed 3 says 1 worker", setup: args("run", "-seed", "3", "-corpus", ""),
			code: exitOK, says: "(from 3, shard 1/1, 1 worker)\n"},
		{row: "run -shrink-time -1s", setup: args("run", "-seed", "3", "-shrink-time", "-1s"),
			code: exitUsage, says: "-shrink-time -1s is negative"},
		{row: "run -corpus BADPATH is refused before the run",
			setup: func(t *testing.T, dir string) []string {
				file := writeFile(t, dir, "afile", nil)
				return []string{"run", "-seeds", "5", "-corpus", filepath.Join(file, "corpus")}
			}, code: exitUsage, says: "afile is a file, not a folder",
			after: func(t *testing.T, _, out string) { assert.Empty(t, out, "nothing ran") }},
		{row: "check a log with a line longer than the reader takes",
			setup: func(t *testing.T, dir string) []string {
				lines := minimalLogLines(t)
				lineBytesMax = len(lines[0]) - 1 // lowered: the real 64 MiB would make the test heavy
				t.Cleanup(func() { lineBytesMax = harnessLineBytesMax })
				return []string{"check", writeFile(t, dir, "long.jsonl", []byte(strings.Join(lines, "")))}
			}, code: exitUsage, says: "line 1: longer than the 95 bytes a session log line may hold"},
		{row: "check a log with invalid UTF-8",
			setup: func(t *testing.T, dir string) []string {
				lines := minimalLogLines(t)
				lines[0] = strings.Replace(lines[0], `"text":"`, "\"text\":\"\xff", 1)
				return []string{"check", writeFile(t, dir, "utf8.jsonl", []byte(strings.Join(lines, "")))}
			}, code: exitViolation, says: "utf8.jsonl:1: utf8: not valid UTF-8 at byte"},
		{row: "check a log with CR LF line endings",
			setup: func(t *testing.T, dir string) []string {
				text := strings.ReplaceAll(strings.Join(minimalLogLines(t), ""), "\n", "\r\n") + "\r\n"
				return []string{"check", writeFile(t, dir, "crlf.jsonl", []byte(text))}
			}, code: exitViolation, says: "crlf.jsonl:1: line-ending: 10 line(s) end in CR LF"},
		{row: "check a log whose time goes backwards",
			setup: func(t *testing.T, dir string) []string {
				lines := minimalLogLines(t)
				lines[2] = strings.Replace(lines[2], `"time":1733000000000`, `"time":1732999999000`, 1)
				return []string{"check", writeFile(t, dir, "time.jsonl", []byte(strings.Join(lines, "")+"\n"))}
			}, code: exitViolation, says: "time.jsonl:3: time-order: turn/start: time 1732999999000 is before the previous event's 1733000000000"},
		{row: `-params {"full-jitter": null}`,
			setup: func(t *testing.T, dir string) []string {
				return []string{"policy", "-params", writeFile(t, dir, "p.json", []byte(`{"full-jitter": null}`))}
			}, code: exitUsage, says: "full-jitter: null is not parameters"},
		{row: "-params with 1e400",
			setup: func(t *testing.T, dir string) []string {
				return []string{"policy", "-params", writeFile(t, dir, "p.json", []byte(`{"full-jitter": {"capMs": 1e400}}`))}
			}, code: exitUsage, says: "full-jitter: capMs: 1e400 is out of range for a number"},
		{row: "policy -svg onto its -params file",
			setup: func(t *testing.T, dir string) []string {
				p := writeFile(t, dir, "p.json", []byte(`{}`))
				return []string{"policy", "-params", p, "-svg", p}
			}, code: exitUsage, says: "is the -params file being read"},
	}
}

// Every row of issue 13's table gets a clear error naming the problem, or the right behaviour
// (the panic row is TestPanicIsAnInternalErrorNotAUsageError and TestSupervisorTellsACrashFromBadUsage).
func TestBadInputIsRefusedClearly(t *testing.T) {
	for _, c := range hardeningCases() {
		t.Run(c.row, func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := simrun(c.setup(t, dir)...)
			assert.Equal(t, c.code, code, "stderr: %s", errOut)
			assert.Contains(t, errOut+out, c.says)
			if c.code == exitUsage {
				assert.Empty(t, out, "nothing on stdout")
			}
			if c.after != nil {
				c.after(t, dir, out)
			}
		})
	}
}

// The whole int64 seed range passes simrun's checks without being listed: -seeds up to
// math.MaxInt64 is a range (running it flat in memory is the runner's part).
func TestSeedRangeIsCheckedByArithmetic(t *testing.T) {
	require.NoError(t, checkSeedRange(1, math.MaxInt64, sim.Shard{}))
	require.NoError(t, checkSeedRange(1, 1_000_000_000, sim.Shard{Index: 4, Of: 4}))
	require.NoError(t, checkSeedRange(math.MaxInt64, 1, sim.Shard{}))
	require.ErrorContains(t, checkSeedRange(math.MaxInt64, 2, sim.Shard{}), "runs past the largest seed")
	require.ErrorContains(t, checkSeedRange(1, 3, sim.Shard{Index: 4, Of: 4}), "selects no seed")
}
