//go:build unix

package cli_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Bounds every bad input must stay within: generous for a loaded CI machine, far below what the
// inputs cost before they were bounded (887 MB for a schedule of 1.4 M empty actions, 940 MB
// for a log with garbage on line 1, 1.07 GB for a bad summary, 1.3 GB for -workers 100000).
const (
	badInputRSSMax  = 100 << 20
	badInputWallMax = 5 * time.Second
)

// badInput is one row of issue 23's table: the files it needs, the command, and what it must
// answer (the exit code, and words of the first line of stderr naming the problem).
type badInput struct {
	name  string
	setup func(t *testing.T, dir string) []string // writes the inputs, returns the arguments
	code  int
	says  string
	// stdout is how the command's standard output is set: "" a pipe, "full" /dev/full,
	// "closed" closed.
	stdout string
	only   string // run on this binary only ("": on both)
}

func argsOf(a ...string) func(*testing.T, string) []string {
	return func(*testing.T, string) []string { return a }
}

// inDir writes the named files (nil content: a sparse file of size bytes, see sparse) and returns
// args with {dir} replaced.
func inDir(files map[string][]byte, args ...string) func(*testing.T, string) []string {
	return func(t *testing.T, dir string) []string {
		for name, data := range files {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
		}
		out := make([]string, len(args))
		for i, a := range args {
			out[i] = strings.ReplaceAll(a, "{dir}", dir)
		}
		return out
	}
}

// sparse makes a file of size bytes that takes no room on disk (zeros), after prefix.
func sparse(t *testing.T, path string, prefix []byte, size int64) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, prefix, 0o644))
	require.NoError(t, os.Truncate(path, size))
}

func withSetup(fn func(t *testing.T, dir string), args ...string) func(*testing.T, string) []string {
	return func(t *testing.T, dir string) []string {
		fn(t, dir)
		return inDir(nil, args...)(t, dir)
	}
}

// A schedule file, valid, and variants of it.
func validSchedule(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("../../corpus/drain-real-results-seed609.json")
	require.NoError(t, err)
	return data
}

// manyEmptyActions is a 4 MiB schedule whose plan holds 1.4 million {} actions.
func manyEmptyActions() []byte {
	head := `{"version":1,"seed":3,"strategy":"uniform","swarm":{},"plan":{"policy":{"mode":"normal","initialDelayMs":100,"maxDelayMs":1000,"jitterRatio":0.1,"maxRetries":2},"maxParallelToolCalls":1,"compactionBudget":0,"horizonMs":1000,"answers":[],"actions":[`
	body := bytes.Repeat([]byte("{},"), (4<<20-len(head)-10)/3)
	return append(append([]byte(head), body...), "{}]}}"...)
}

// deepNesting is a schedule file nested a million arrays deep.
func deepNesting() []byte {
	return append(append([]byte(`{"version":1,"plan":`), bytes.Repeat([]byte("["), 1<<20)...), bytes.Repeat([]byte("]"), 1<<20)...)
}

func goodLogLines(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("testdata/check/good/minimal.jsonl")
	require.NoError(t, err)
	return strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
}

// shardSummary runs one shard of a 40-seed run with extra flags and writes its summary to name.
func shardSummary(t *testing.T, b binary, dir, name, shard string, extra ...string) {
	t.Helper()
	r := runBinary(t, b, "", nil, append([]string{"run", "-seeds", "40", "-shard", shard, "-json", "-corpus", ""}, extra...)...)
	require.Contains(t, []int{0, 1}, r.code, r.stderr)
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(r.stdout), 0o644))
}

// hugeBadSummary is a 30 MiB summary: every key right, then a failures list of 2.5 million
// empty objects.
func hugeBadSummary(t *testing.T, b binary, dir string) {
	t.Helper()
	shardSummary(t, b, dir, "good.json", "1/2")
	good, err := os.ReadFile(filepath.Join(dir, "good.json"))
	require.NoError(t, err)
	bad := bytes.Replace(good, []byte(`"failures":[]`), append(append([]byte(`"failures":[`), bytes.Repeat([]byte("{},"), 10<<20)...), "{}]"...), 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "huge.json"), bad, 0o644))
}

func badInputs() []badInput {
	return []badInput{
		// run
		{name: "run -seeds 0", setup: argsOf("run", "-seeds", "0"), code: 2, says: "-seeds 0: need at least 1 seed"},
		{name: "run -seeds -5", setup: argsOf("run", "-seeds", "-5"), code: 2, says: "-seeds -5: need at least 1 seed"},
		{name: "run -seeds ten", setup: argsOf("run", "-seeds", "ten"), code: 2, says: `invalid value "ten" for flag -seeds`},
		{name: "run -workers 0", setup: argsOf("run", "-workers", "0"), code: 2, says: "-workers 0: need 1 to 256 workers"},
		{name: "run -workers 100000", setup: argsOf("run", "-workers", "100000"), code: 2, says: "-workers 100000: need 1 to 256 workers"},
		{name: "run past the last seed", setup: argsOf("run", "-start", "9223372036854775807", "-seeds", "2"), code: 2, says: "runs past the largest seed"},
		{name: "run -seed with -seeds", setup: argsOf("run", "-seed", "3", "-seeds", "10"), code: 2, says: "-seed runs one seed"},
		{name: "run -shard 5/4", setup: argsOf("run", "-shard", "5/4"), code: 2, says: "i must be between 1 and n"},
		{name: "run -shard half", setup: argsOf("run", "-shard", "half"), code: 2, says: "is not of the form i/n"},
		{name: "run -shard 0/0", setup: argsOf("run", "-shard", "0/0"), code: 2, says: "i must be between 1 and n"},
		{name: "run a shard with no seed", setup: argsOf("run", "-seeds", "1", "-shard", "3/4"), code: 2, says: "selects no seed"},
		{name: "run -faults gremlins", setup: argsOf("run", "-faults", "rate-limit,gremlins"), code: 2, says: `unknown fault "gremlins"`},
		{name: "run -faults twice", setup: argsOf("run", "-faults", "crash,crash"), code: 2, says: `fault "crash" named twice`},
		{name: "run -progress sometimes", setup: argsOf("run", "-progress", "sometimes"), code: 2, says: `-progress "sometimes" is not auto, always or never`},
		{name: "run -shrink-time -1s", setup: argsOf("run", "-shrink-time", "-1s"), code: 2, says: "-shrink-time -1s is negative"},
		{name: "run -corpus under a file", setup: inDir(map[string][]byte{"afile": nil}, "run", "-seeds", "5", "-corpus", "{dir}/afile/corpus"), code: 2, says: "afile is a file, not a folder"},
		{name: "run with an argument", setup: argsOf("run", "extra"), code: 2, says: `run takes no arguments, got "extra"`},
		{name: "run -plant of no mutant", setup: argsOf("run", "-seeds", "5", "-plant", "no-such-bug"), code: 2, says: "no mutant named no-such-bug"},
		// repro and shrink: schedule files
		{name: "repro of nothing", setup: argsOf("repro"), code: 2, says: "repro needs -seed S or one schedule file"},
		{name: "repro -seed and a file", setup: argsOf("repro", "-seed", "1", "x.json"), code: 2, says: "not both"},
		{name: "repro a missing file", setup: argsOf("repro", "no-such-file.json"), code: 2, says: "no such file or directory"},
		{name: "repro a folder", setup: inDir(nil, "repro", "{dir}"), code: 2, says: "is a folder"},
		{name: "repro an empty file", setup: inDir(map[string][]byte{"empty.json": {}}, "repro", "{dir}/empty.json"), code: 2, says: "the file is empty"},
		{name: "repro a corpus file without its schedule", setup: inDir(map[string][]byte{"c.json": []byte(`{"format":"turnsim-corpus","version":1,"property":"turn-settled","seed":3,"turnsimVersion":"x"}`)}, "repro", "{dir}/c.json"), code: 2, says: "no schedule in it"},
		{name: "repro a corpus file naming an unknown property", setup: withSetup(func(t *testing.T, dir string) {
			data := strings.Replace(string(validSchedule(t)), `"property": "drain-real-results"`, `"property": "no-such-property"`, 1)
			require.Contains(t, data, "no-such-property")
			require.NoError(t, os.WriteFile(filepath.Join(dir, "c.json"), []byte(data), 0o644))
		}, "repro", "{dir}/c.json"), code: 2, says: `names the property "no-such-property", which this build does not know`},
		{name: "repro -log -", setup: argsOf("repro", "-seed", "1", "-log", "-"), code: 2, says: "-log -: standard output is not an output here"},
		{name: "repro a JSON array", setup: inDir(map[string][]byte{"a.json": []byte("[]")}, "repro", "{dir}/a.json"), code: 2, says: "the file is a JSON array, not the JSON object of a schedule"},
		{name: "repro garbage", setup: inDir(map[string][]byte{"g.json": []byte("garbage\x00\xff")}, "repro", "{dir}/g.json"), code: 2, says: "invalid character"},
		{name: "repro a 430 MB sparse file", setup: withSetup(func(t *testing.T, dir string) { sparse(t, filepath.Join(dir, "huge.json"), nil, 430<<20) }, "repro", "{dir}/huge.json"), code: 2, says: "is 430.0 MiB, over the 4.0 MiB limit"},
		{name: "repro 1.4 million empty actions", setup: inDir(map[string][]byte{"many.json": manyEmptyActions()}, "repro", "{dir}/many.json"), code: 2, says: "array of more than 10000 elements"},
		{name: "shrink 1.4 million empty actions", setup: inDir(map[string][]byte{"many.json": manyEmptyActions()}, "shrink", "{dir}/many.json"), code: 2, says: "array of more than 10000 elements"},
		{name: "repro a million arrays deep", setup: inDir(map[string][]byte{"deep.json": deepNesting()}, "repro", "{dir}/deep.json"), code: 2, says: "nested deeper than 32"},
		{name: "repro a key twice", setup: inDir(map[string][]byte{"twice.json": []byte(`{"version":1,"version":1,"seed":1}`)}, "repro", "{dir}/twice.json"), code: 2, says: `the key "version" appears twice`},
		{name: "repro a newer version", setup: inDir(map[string][]byte{"v2.json": []byte(`{"version":2,"seed":1}`)}, "repro", "{dir}/v2.json"), code: 2, says: "schedule version 2 is not supported"},
		{name: "repro an unknown field", setup: inDir(map[string][]byte{"u.json": []byte(`{"version":1,"seed":1,"strategy":"uniform","swarm":{},"plan":{},"extra":1}`)}, "repro", "{dir}/u.json"), code: 2, says: `unknown field "extra"`},
		{name: "repro trailing data", setup: inDir(map[string][]byte{"t.json": []byte(`{"version":1} {}`)}, "repro", "{dir}/t.json"), code: 2, says: "trailing data"},
		{name: "repro a negative delay", setup: inDir(map[string][]byte{"neg.json": []byte(`{"version": 1, "seed": 3, "strategy": "uniform", "swarm": {}, "plan": {"policy": {"mode": "normal", "initialDelayMs": -5, "maxDelayMs": 10, "jitterRatio": 0.1, "maxRetries": 2}}}`)}, "repro", "{dir}/neg.json"), code: 2, says: "initialDelayMs"},
		{name: "repro a corpus file of another format", setup: inDir(map[string][]byte{"f.json": []byte(`{"format":"other","version":1}`)}, "repro", "{dir}/f.json"), code: 2, says: `format "other" is not "turnsim-corpus"`},
		{name: "repro -faults with a file", setup: withSetup(func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "s.json"), validSchedule(t), 0o644))
		}, "repro", "-faults", "crash", "{dir}/s.json"), code: 2, says: "-faults shapes drawn schedules"},
		{name: "repro a FIFO no one writes", setup: withSetup(func(t *testing.T, dir string) {
			require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
		}, "repro", "{dir}/fifo"), code: 2, says: "the file is empty"},
		// outputs that are not regular files, or not writable
		{name: "repro -log a device", setup: argsOf("repro", "-seed", "1", "-log", "/dev/null"), code: 2, says: "/dev/null is a device, not a regular file: refusing to replace it"},
		{name: "repro -log a symlink", setup: withSetup(func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "target"), []byte("keep"), 0o644))
			require.NoError(t, os.Symlink(filepath.Join(dir, "target"), filepath.Join(dir, "link")))
		}, "repro", "-seed", "1", "-log", "{dir}/link"), code: 2, says: "link is a symlink, not a regular file"},
		{name: "repro -schedule a FIFO", setup: withSetup(func(t *testing.T, dir string) {
			require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
		}, "repro", "-seed", "1", "-schedule", "{dir}/fifo"), code: 2, says: "fifo is a FIFO, not a regular file"},
		{name: "repro -html a folder", setup: inDir(nil, "repro", "-seed", "1", "-html", "{dir}"), code: 2, says: "is a folder, not a regular file"},
		{name: "repro -log in a missing folder", setup: inDir(nil, "repro", "-seed", "1", "-log", "{dir}/missing/run.jsonl"), code: 2, says: "does not exist"},
		{name: "repro -log onto its input", setup: withSetup(func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "s.json"), validSchedule(t), 0o644))
		}, "repro", "{dir}/s.json", "-log", "{dir}/s.json"), code: 2, says: "is the schedule file being read"},
		{name: "repro -log and -schedule one file", setup: inDir(nil, "repro", "-seed", "1", "-log", "{dir}/x", "-schedule", "{dir}/./x"), code: 2, says: "-log and -schedule both name"},
		{name: "shrink of nothing", setup: argsOf("shrink"), code: 2, says: "shrink needs exactly one schedule or corpus file"},
		{name: "shrink -property nope", setup: withSetup(func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "s.json"), validSchedule(t), 0o644))
		}, "shrink", "-property", "nope", "{dir}/s.json"), code: 2, says: `-property "nope" is not a property`},
		{name: "shrink -time -1s", setup: argsOf("shrink", "-time", "-1s", "x.json"), code: 2, says: "-time -1s is negative"},
		{name: "shrink -o onto its input", setup: withSetup(func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "s.json"), validSchedule(t), 0o644))
		}, "shrink", "-o", "{dir}/s.json", "{dir}/s.json"), code: 2, says: "is the schedule file being read"},
		{name: "shrink -o a symlink", setup: withSetup(func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "s.json"), validSchedule(t), 0o644))
			require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(dir, "link")))
		}, "shrink", "-o", "{dir}/link", "{dir}/s.json"), code: 2, says: "link is a symlink, not a regular file"},
		// check: session logs
		{name: "check of nothing", setup: argsOf("check"), code: 2, says: "check needs at least one session log"},
		{name: "check a folder", setup: inDir(nil, "check", "{dir}"), code: 2, says: "unreadable: is a directory"},
		{name: "check a missing file", setup: inDir(nil, "check", "{dir}/missing.jsonl"), code: 2, says: "unreadable: no such file or directory"},
		{name: "replay -search past its bound", setup: argsOf("replay", "-search", "100001", "x.jsonl"), code: 2, says: "-search 100001: at most 100000 seeds"},
		{name: "check text without a newline", setup: inDir(map[string][]byte{"t.jsonl": []byte("hello world")}, "check", "{dir}/t.jsonl"), code: 2, says: "not the start of an event line a write cut short"},
		{name: "check a JSON object that is no event", setup: inDir(map[string][]byte{"o.jsonl": []byte(`{"version":1,"seed":3}`)}, "check", "{dir}/o.jsonl"), code: 2, says: "a whole JSON object, but no event"},
		{name: "check garbage on line 1 of 300 MB", setup: withSetup(func(t *testing.T, dir string) {
			sparse(t, filepath.Join(dir, "big.jsonl"), []byte("garbage\n"), 300<<20)
		}, "check", "{dir}/big.jsonl"), code: 2, says: "unreadable: line 1: invalid character 'g'"},
		{name: "check one 472 MB line of zeros", setup: withSetup(func(t *testing.T, dir string) {
			sparse(t, filepath.Join(dir, "zeros.jsonl"), nil, 472<<20)
			f, err := os.OpenFile(filepath.Join(dir, "zeros.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
			require.NoError(t, err)
			_, err = f.Write([]byte("\n"))
			require.NoError(t, err)
			require.NoError(t, f.Close())
		}, "check", "{dir}/zeros.jsonl"), code: 2, says: "longer than the 64.0 MiB a session log line may hold"},
		{name: "check a 1.1 GiB file", setup: withSetup(func(t *testing.T, dir string) {
			sparse(t, filepath.Join(dir, "huge.jsonl"), nil, 1100<<20)
		}, "check", "{dir}/huge.jsonl"), code: 2, says: "over the 1.0 GiB a session log given to check may hold"},
		{name: "check /dev/zero", setup: argsOf("check", "/dev/zero"), code: 2, says: "longer than the 64.0 MiB"},
		{name: "check a long line of '{'", setup: withSetup(func(t *testing.T, dir string) {
			sparse(t, filepath.Join(dir, "brace.jsonl"), []byte("{"), 100<<20)
		}, "check", "{dir}/brace.jsonl"), code: 2, says: "longer than the 64.0 MiB"},
		{name: "check a blank line", setup: inDir(map[string][]byte{"blank.jsonl": []byte("\n")}, "check", "{dir}/blank.jsonl"), code: 2, says: "line 1: blank line"},
		{name: "check -late -1s", setup: argsOf("check", "-late", "-1s", "x.jsonl"), code: 2, says: "-late -1s is negative"},
		{name: "check a key twice", setup: func(t *testing.T, dir string) []string {
			lines := goodLogLines(t)
			lines[2] = strings.Replace(lines[2], `"data":{"turn":1}`, `"data":{"turn":1,"turn":1}`, 1)
			return inDir(map[string][]byte{"dup.jsonl": []byte(strings.Join(lines, "") + "\n")}, "check", "{dir}/dup.jsonl")(t, dir)
		}, code: 1, says: ""},
		{name: "check a message id twice", setup: func(t *testing.T, dir string) []string {
			lines := goodLogLines(t)
			second := strings.Replace(lines[0], `"seq":1,`, `"seq":11,`, 1)
			second = strings.Replace(strings.Replace(second, `"hi"`, `"again"`, 1), `"time":1733000000000`, `"time":1733000000800`, 1)
			log := strings.Join(lines, "") + "\n" + second
			return inDir(map[string][]byte{"ids.jsonl": []byte(log)}, "check", "{dir}/ids.jsonl")(t, dir)
		}, code: 1, says: ""},
		// merge: summaries
		{name: "merge of nothing", setup: argsOf("merge"), code: 2, says: "merge needs the -json summaries of every shard"},
		{name: "merge a missing file", setup: inDir(nil, "merge", "{dir}/missing.json"), code: 2, says: "no such file or directory"},
		{name: "merge garbage", setup: inDir(map[string][]byte{"g.json": []byte("garbage")}, "merge", "{dir}/g.json"), code: 2, says: "not the JSON object of run -json"},
		{name: "merge a JSON list", setup: inDir(map[string][]byte{"l.json": []byte("[1,2]")}, "merge", "{dir}/l.json"), code: 2, says: "not the JSON object of run -json"},
		{name: "merge a 239 MiB summary", setup: withSetup(func(t *testing.T, dir string) {
			sparse(t, filepath.Join(dir, "huge.json"), []byte(`{"seeds":`), 239<<20)
		}, "merge", "{dir}/huge.json"), code: 2, says: "is 239.0 MiB, over the 32.0 MiB limit"},
		{name: "merge a 30 MiB summary of empty failures", setup: nil, code: 2, says: "array of more than 100000 elements"},
		{name: "merge a summary with a key twice", setup: inDir(map[string][]byte{"d.json": []byte(`{"seeds":1,"seeds":2}`)}, "merge", "{dir}/d.json"), code: 2, says: `the key "seeds" appears twice`},
		{name: "merge shards of different -faults", setup: nil, code: 2, says: "ran the whole fault catalogue but"},
		{name: "merge shards of different -check-determinism", setup: nil, code: 2, says: "differ on -check-determinism"},
		{name: "merge a shard twice", setup: nil, code: 2, says: "are both shard 1/2"},
		// policy
		{name: "policy -agents 1001", setup: argsOf("policy", "-agents", "1001"), code: 2, says: "agents: 1001 is outside 1..1000"},
		{name: "policy -requests 1000000", setup: argsOf("policy", "-agents", "1000", "-requests", "1000000"), code: 2, says: "-requests 1000000: at most 1000"},
		{name: "policy -seeds 100000000", setup: argsOf("policy", "-seeds", "100000000"), code: 2, says: "-seeds 100000000: at most 1000 seeds"},
		{name: "policy -params a FIFO no one writes", setup: withSetup(func(t *testing.T, dir string) {
			require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
		}, "policy", "-params", "{dir}/fifo"), code: 2, says: "-params"},
		{name: "policy -params of 2 MiB", setup: withSetup(func(t *testing.T, dir string) {
			sparse(t, filepath.Join(dir, "p.json"), []byte("{"), 2<<20)
		}, "policy", "-params", "{dir}/p.json"), code: 2, says: "over the 1.0 MiB limit"},
		{name: "policy -params null", setup: inDir(map[string][]byte{"p.json": []byte(`{"full-jitter": null}`)}, "policy", "-params", "{dir}/p.json"), code: 2, says: "null is not parameters"},
		{name: "policy -svg a device", setup: argsOf("policy", "-agents", "5", "-svg", "/dev/null"), code: 2, says: "/dev/null is a device"},
		{name: "policy -policies gremlins", setup: argsOf("policy", "-policies", "gremlins"), code: 2, says: `unknown strategy "gremlins"`},
		{name: "policy -policies agent without a strategy", setup: argsOf("policy", "-policies", "agent"), code: 2, says: "this agent has none", only: "simrun"},
		// fuzz-policy
		{name: "fuzz-policy -checks 0", setup: argsOf("fuzz-policy", "-checks", "0"), code: 2, says: "-checks 0: need 1 to 1000000"},
		{name: "fuzz-policy -checks past int64's end", setup: argsOf("fuzz-policy", "-checks", "9223372036854775807"), code: 2, says: "need 1 to 1000000"},
		{name: "fuzz-policy -seed 0", setup: argsOf("fuzz-policy", "-seed", "0"), code: 2, says: "-seed 0: rapid reads 0"},
		{name: "fuzz-policy -policies nonesuch", setup: argsOf("fuzz-policy", "-policies", "nonesuch"), code: 2, says: `unknown policy family "nonesuch"`},
		// mutate
		{name: "mutate -start past int64's end", setup: argsOf("mutate", "-start", "9223372036854775807"), code: 2, says: "runs past the largest seed"},
		{name: "mutate -seeds 0", setup: argsOf("mutate", "-seeds", "0"), code: 2, says: "-seeds must be at least 1"},
		{name: "mutate -workers 1000", setup: argsOf("mutate", "-workers", "1000"), code: 2, says: "-workers must be 1 to 64"},
		{name: "mutate -mutants nonesuch", setup: argsOf("mutate", "-mutants", "nonesuch"), code: 2, says: "no mutant named nonesuch"},
		// faults, properties, unknown commands
		{name: "faults -coverage -1", setup: argsOf("faults", "-coverage", "-1"), code: 2, says: "-coverage -1 is outside [0, 100000]"},
		{name: "faults -coverage 100001", setup: argsOf("faults", "-coverage", "100001"), code: 2, says: "-coverage 100001 is outside"},
		{name: "properties with an argument", setup: argsOf("properties", "x"), code: 2, says: "properties takes no arguments"},
		{name: "an unknown command", setup: argsOf("frobnicate"), code: 2, says: `unknown command "frobnicate"`},
		{name: "an unknown flag", setup: argsOf("-bogus"), code: 2, says: "flag provided but not defined: -bogus"},
		// standard output that cannot be written
		{name: "run into a full disk", setup: argsOf("run", "-seeds", "2", "-corpus", ""), stdout: "full", code: 2, says: "writing the output: no space left on device"},
		{name: "faults into a full disk", setup: argsOf("faults", "-coverage", "0"), stdout: "full", code: 2, says: "writing the output: no space left on device"},
		{name: "run into a closed output", setup: argsOf("run", "-seeds", "2", "-corpus", ""), stdout: "closed", code: 2, says: "standard output is closed"},
	}
}

// setupMerge prepares the merge rows that need real shards of the binary.
func setupMerge(t *testing.T, b binary, c badInput, dir string) []string {
	switch c.name {
	case "merge a 30 MiB summary of empty failures":
		hugeBadSummary(t, b, dir)
		return []string{"merge", filepath.Join(dir, "huge.json")}
	case "merge shards of different -faults":
		shardSummary(t, b, dir, "a.json", "1/2", "-faults", "rate-limit,crash")
		shardSummary(t, b, dir, "b.json", "2/2")
	case "merge shards of different -check-determinism":
		shardSummary(t, b, dir, "a.json", "1/2", "-check-determinism")
		shardSummary(t, b, dir, "b.json", "2/2")
	case "merge a shard twice":
		shardSummary(t, b, dir, "a.json", "1/2")
		shardSummary(t, b, dir, "b.json", "1/2")
	}
	return []string{"merge", filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")}
}

// snapshot is every file of a folder: its kind and, for a regular file, its content's hash.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(path)
		if err != nil {
			return err
		}
		entry := info.Mode().Type().String()
		if info.Mode().IsRegular() {
			entry += fmt.Sprintf(" %d %d %s", info.Size(), info.ModTime().UnixNano(), contentHash(t, path, info.Size()))
		}
		files[path] = entry
		return nil
	}))
	return files
}

// contentHash is a file's SHA-256; of a file over 64 MiB (the tests' sparse ones), the hash of
// its first and last MiB, which with its size and time stands for it.
func contentHash(t *testing.T, path string, size int64) string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	h := sha256.New()
	if size <= 64<<20 {
		_, err = io.Copy(h, f)
		require.NoError(t, err)
		return fmt.Sprintf("%x", h.Sum(nil))
	}
	_, err = io.Copy(h, io.LimitReader(f, 1<<20))
	require.NoError(t, err)
	_, err = f.Seek(-1<<20, io.SeekEnd)
	require.NoError(t, err)
	_, err = io.Copy(h, f)
	require.NoError(t, err)
	return fmt.Sprintf("%x", h.Sum(nil))
}

// runWithStdout runs b with args through the measuring process (see measureChild), its
// standard output set as stdout says: "" a pipe, "full" /dev/full, "closed" closed (as `>&-`
// leaves it, which only a shell does for its child).
func runWithStdout(t *testing.T, b binary, stdout string, args []string) result {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	command := append([]string{self, b.path}, args...)
	var out *os.File
	switch stdout {
	case "full":
		if out, err = os.OpenFile("/dev/full", os.O_WRONLY, 0); err != nil {
			t.Skip("no /dev/full here")
		}
		defer out.Close()
	case "closed":
		command = append([]string{"/bin/sh", "-c", `exec "$0" "$@" >&-`}, command...)
	}
	report, reportWriter, err := os.Pipe()
	require.NoError(t, err)
	defer report.Close()
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Dir = moduleRoot
	cmd.Env = append(os.Environ(), measureEnv+"=1")
	cmd.ExtraFiles = []*os.File{reportWriter}
	var stdoutBuffer, stderr bytes.Buffer
	if out != nil {
		cmd.Stdout = out
	} else if stdout == "" {
		cmd.Stdout = &stdoutBuffer
	}
	cmd.Stderr = &stderr
	began := time.Now()
	runErr := cmd.Run()
	wall := time.Since(began)
	reportWriter.Close()
	if _, ok := runErr.(*exec.ExitError); runErr != nil && !ok {
		t.Fatalf("%v did not run: %v", args, runErr)
	}
	r := result{code: cmd.ProcessState.ExitCode(), stdout: stdoutBuffer.String(), stderr: stderr.String(), wall: wall}
	data, err := io.ReadAll(report)
	require.NoError(t, err)
	r.maxRSSBytes, err = strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	require.NoError(t, err, "the measuring process reported %q", data)
	return r
}

// Every row of issue 23's table, on both binaries: the exit code, a first line of stderr naming
// the problem, under 100 MB and 5 s, and every input byte for byte as it was (a device, a
// symlink, a FIFO still what they were).
func TestBadInputsAreRefusedCheaplyAndChangeNothing(t *testing.T) {
	cases := badInputs()
	require.GreaterOrEqual(t, len(cases), 60, "issue 23 asks for at least 60 rows")
	for _, b := range binaries(t) {
		for _, c := range cases {
			if c.only != "" && c.only != b.name {
				continue
			}
			t.Run(b.name+"/"+c.name, func(t *testing.T) {
				dir := t.TempDir()
				var args []string
				if c.setup != nil {
					args = c.setup(t, dir)
				} else {
					args = setupMerge(t, b, c, dir)
				}
				before := snapshot(t, dir)
				devNull, err := os.Stat("/dev/null")
				require.NoError(t, err)
				r := runWithStdout(t, b, c.stdout, args)
				t.Logf("exit %d, peak RSS %.1f MB, %v", r.code, float64(r.maxRSSBytes)/(1<<20), r.wall.Round(time.Millisecond))
				assert.Equal(t, c.code, r.code, "stderr: %s", r.stderr)
				firstLine, _, _ := strings.Cut(r.stderr, "\n")
				if c.says != "" {
					assert.Contains(t, firstLine, c.says, "the first line of stderr names the problem")
				}
				if c.code == 2 {
					assert.NotEmpty(t, firstLine, "a refusal says why")
					assert.Empty(t, r.stdout, "a refusal prints nothing on stdout")
				}
				assert.Less(t, r.maxRSSBytes, int64(badInputRSSMax), "peak RSS %d MB", r.maxRSSBytes>>20)
				assert.Less(t, r.wall, badInputWallMax)
				assert.Equal(t, before, snapshot(t, dir), "the inputs are as they were, and nothing was written beside them")
				after, err := os.Stat("/dev/null")
				require.NoError(t, err)
				assert.Equal(t, devNull.Mode(), after.Mode(), "/dev/null is still a device")
			})
		}
	}
}

// The JSON a check of a log with a key twice, or a message id twice, reports: the rules by name.
func TestCheckNamesDuplicateKeysAndMessageIDs(t *testing.T) {
	b := binaries(t)[0]
	dir := t.TempDir()
	lines := goodLogLines(t)
	dup := append([]string(nil), lines...)
	dup[2] = strings.Replace(dup[2], `"data":{"turn":1}`, `"data":{"turn":1,"turn":1}`, 1)
	second := strings.Replace(strings.Replace(lines[0], `"seq":1,`, `"seq":11,`, 1), `"hi"`, `"again"`, 1)
	second = strings.Replace(second, `"time":1733000000000`, `"time":1733000000800`, 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dup.jsonl"), []byte(strings.Join(dup, "")+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ids.jsonl"), []byte(strings.Join(lines, "")+"\n"+second), 0o644))
	r := runBinary(t, b, "", nil, "check", "-json", filepath.Join(dir, "dup.jsonl"), filepath.Join(dir, "ids.jsonl"))
	require.Equal(t, 1, r.code, r.stderr)
	var report struct {
		Files []struct {
			Violations []struct {
				Line int
				Rule string
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &report))
	require.Len(t, report.Files, 2)
	require.Len(t, report.Files[0].Violations, 1, r.stdout)
	assert.Equal(t, "duplicate-key", report.Files[0].Violations[0].Rule)
	assert.Equal(t, 3, report.Files[0].Violations[0].Line)
	require.Len(t, report.Files[1].Violations, 1, r.stdout)
	assert.Equal(t, "message-id", report.Files[1].Violations[0].Rule)
	assert.Equal(t, 11, report.Files[1].Violations[0].Line)
}
