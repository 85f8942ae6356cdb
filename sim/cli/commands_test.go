//go:build unix

package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// commandRow is one row of the command table that both binaries must pass: the arguments
// ({name} stands for the binary's name, {property} for a property of its agent, {family} for a
// policy family, {policies} for the policies it compares, {dir} for the test's folder), the exit
// code, and what stdout and stderr must hold (the same words replaced).
type commandRow struct {
	name   string
	args   string
	code   int
	stdout []string
	stderr []string
	check  func(t *testing.T, b binary, dir string, r result)
}

func (row commandRow) expand(b binary, dir, text string) string {
	return strings.NewReplacer("{name}", b.name, "{property}", b.property, "{family}", b.family, "{policies}", b.policies, "{dir}", dir).Replace(text)
}

// commandTable is every command, run on each agent as its user runs it: issue 24's list of what
// a user's command could not do is rows of it.
func commandTable() []commandRow {
	return []commandRow{
		{name: "help lists every command", args: "help", stdout: []string{"usage: {name} [command]", "run ", "repro ", "shrink ", "check ", "merge ", "policy ", "fuzz-policy ", "faults ", "properties ", "mutate ", "plants "}},
		{name: "an unknown command", args: "frobnicate", code: 2, stderr: []string{`{name}: unknown command "frobnicate"`}},
		{name: "run", args: "run -seeds 200 -corpus {dir}/corpus -progress never", stdout: []string{"seeds              200 (from 1, shard 1/1,", "violations         0", "digest ", "fault coverage"}},
		{name: "run with no command", args: "-seeds 20 -corpus {dir}/corpus", stdout: []string{"seeds              20 "}},
		{name: "run -seed is one seed", args: "run -seed 5855 -json -corpus {dir}/corpus", stdout: []string{`"seeds":1,"firstSeed":5855,`}},
		{name: "run -shard", args: "run -seeds 300 -shard 2/3 -json -corpus {dir}/corpus", stdout: []string{`"seeds":100,"firstSeed":1,"shard":"2/3"`}},
		{name: "run -check-determinism", args: "run -seeds 50 -check-determinism -corpus {dir}/corpus", stdout: []string{"determinism        checked: every seed ran twice; 0 seeds gave different logs"}},
		{name: "run -progress always", args: "run -seeds 20 -progress always -corpus {dir}/corpus", stderr: []string{"{name}: 20/20 seeds"}},
		{name: "run -json has every key", args: "run -seeds 30 -json -corpus {dir}/corpus", check: func(t *testing.T, _ binary, _ string, r result) {
			var summary map[string]any
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &summary))
			for _, key := range []string{"seeds", "firstSeed", "shard", "workers", "violations", "violationsByProperty", "failingSeeds", "failingSeedCount", "failures", "faultCoverage", "outcomeCoverage", "digest", "slowestSeeds", "determinismChecked", "faults", "plant"} {
				assert.Contains(t, summary, key)
			}
		}},
		{name: "run -workers above the bound", args: "run -workers 100000", code: 2, stderr: []string{"-workers 100000: need 1 to 256 workers"}},
		{name: "repro writes its log, schedule and timeline", args: "repro -seed 12 -log {dir}/run.jsonl -schedule {dir}/s.json -html {dir}/t.html", stdout: []string{"seed 12: ", "no violation"}, check: func(t *testing.T, b binary, dir string, r result) {
			for _, name := range []string{"run.jsonl", "s.json", "t.html"} {
				info, err := os.Stat(filepath.Join(dir, name))
				require.NoError(t, err)
				assert.Positive(t, info.Size(), name)
			}
			again := runBinary(t, b, "", nil, "repro", filepath.Join(dir, "s.json"))
			assert.Equal(t, 0, again.code, again.stderr)
			assert.Equal(t, r.stdout, again.stdout, "the saved schedule replays the same run")
			checked := runBinary(t, b, "", nil, "check", "-late", "0", filepath.Join(dir, "run.jsonl"))
			assert.Equal(t, 0, checked.code, checked.stdout+checked.stderr)
			assert.Contains(t, checked.stdout, " events, ok")
		}},
		{name: "shrink a schedule that breaks nothing", args: "shrink -seed 12", stderr: []string{"seed 12 breaks no property: nothing to shrink"}},
		{name: "check a real log: late timers, readable times", args: "check sim/cli/testdata/check/late/ninety-ms-late.jsonl", stdout: []string{"ninety-ms-late.jsonl: 7 events, ok"}},
		{name: "check -late 0 holds it to the simulator's exactness", args: "check -late 0 sim/cli/testdata/check/late/ninety-ms-late.jsonl", code: 1, stdout: []string{"ninety-ms-late.jsonl:4: retry-started-on-time: "}, check: func(t *testing.T, _ binary, _ string, r result) {
			assert.NotRegexp(t, regexp.MustCompile(`\+\d{6,}\.\d+s`), r.stdout, "no time printed as seconds since 1970")
		}},
		{name: "check a log the harness never writes", args: "check sim/cli/testdata/check/bad/scope.jsonl", code: 1, stdout: []string{"scope.jsonl:7: scope: "}},
		{name: "properties lists the agent's", args: "properties", stdout: []string{"{property} ", "durable-before-wait "}},
		{name: "faults with coverage over the agent", args: "faults -coverage 100", stdout: []string{"rate-limit ", "coverage"}},
		{name: "plants", args: "plants", stdout: []string{"caught by "}},
		{name: "mutate -list", args: "mutate -list", stdout: []string{"caught by "}},
		{name: "fuzz-policy over a family", args: "fuzz-policy -policies {family} -checks 10 -seed 7", stdout: []string{"ok   {family} (10 checks)", "repeat: "}},
		{name: "fuzz-policy -checks past the bound", args: "fuzz-policy -checks 9223372036854775807", code: 2, stderr: []string{"-checks 9223372036854775807: need 1 to 1000000"}},
		{name: "policy compares the agent's policies", args: "policy -policies {policies} -agents 20 -seeds 1", stdout: []string{"20 agents × 3 requests"}},
		{name: "merge the shards of a run into the run", args: "", check: checkMergeEqualsTheRun},
	}
}

// The same table passes on turnsim's simrun and on a user's command.
func TestCommandTableOnBothBinaries(t *testing.T) {
	for _, b := range binaries(t) {
		for _, row := range commandTable() {
			t.Run(b.name+"/"+row.name, func(t *testing.T) {
				dir := t.TempDir()
				var r result
				if row.args != "" {
					r = runBinary(t, b, "", nil, strings.Fields(row.expand(b, dir, row.args))...)
					assert.Equal(t, row.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
					for _, want := range row.stdout {
						assert.Contains(t, r.stdout, row.expand(b, dir, want))
					}
					for _, want := range row.stderr {
						assert.Contains(t, r.stderr, row.expand(b, dir, want))
					}
				}
				if row.check != nil {
					row.check(t, b, dir, r)
				}
				assert.NoDirExists(t, filepath.Join(dir, "corpus"), "nothing failed, nothing kept")
			})
		}
	}
}

// checkMergeEqualsTheRun: a user's shards merge as simrun's do, into the unsharded run, key by key
// (timings aside).
func checkMergeEqualsTheRun(t *testing.T, b binary, dir string, _ result) {
	whole := runBinary(t, b, "", nil, "run", "-seeds", "300", "-json", "-corpus", "")
	require.Equal(t, 0, whole.code, whole.stderr)
	var shards []string
	for i := 1; i <= 3; i++ {
		r := runBinary(t, b, "", nil, "run", "-seeds", "300", "-shard", fmt.Sprintf("%d/3", i), "-workers", "1", "-json", "-corpus", "")
		require.Equal(t, 0, r.code, r.stderr)
		path := filepath.Join(dir, fmt.Sprintf("shard%d.json", i))
		require.NoError(t, os.WriteFile(path, []byte(r.stdout), 0o644))
		shards = append(shards, path)
	}
	merged := runBinary(t, b, "", nil, append([]string{"merge", "-json"}, shards...)...)
	require.Equal(t, 0, merged.code, merged.stderr)
	var want, got map[string]any
	require.NoError(t, json.Unmarshal([]byte(whole.stdout), &want))
	require.NoError(t, json.Unmarshal([]byte(merged.stdout), &got))
	for key := range want {
		switch key {
		case "wallSeconds", "schedulesPerSecond", "schedulesPerSecondPerCore", "simSecondsPerWallSecond", "workers", "slowestSeeds":
			assert.Contains(t, got, key)
		case "simSeconds":
			assert.InDelta(t, want[key], got[key], 1e-6)
		default:
			assert.Equal(t, want[key], got[key], key)
		}
	}
	assert.Len(t, got, len(want), "the same keys")
	text := runBinary(t, b, "", nil, append([]string{"merge"}, shards...)...)
	assert.Contains(t, text.stdout, "seeds              300 (from 1, shard 1/1, 3 shards: 3 of 1 worker)")
}
