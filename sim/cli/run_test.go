package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/eventjson"
	"github.com/turnsim/turnsim/sim"
)

func TestRunPrintsTheSummary(t *testing.T) {
	code, out, errOut := simrun("run", "-seeds", "200", "-workers", "2")
	require.Equal(t, exitOK, code, errOut)
	for _, want := range []string{"seeds              200", "violations         0", "schedules/s", "sim s / wall s", "digest", "slowest seeds", "handoffs", "fault coverage", "rate-limit", "outcome coverage", "aborted"} {
		assert.Contains(t, out, want)
	}
	assert.Empty(t, errOut, "no progress bar when stderr is not a terminal")
}

func TestRunWithNoCommandIsTheDefaultRun(t *testing.T) {
	code, out, _ := simrun("-seeds", "20")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "seeds              20 ")
}

// The JSON summary's keys are a contract that scripts depend on.
func TestRunJSONSummaryKeys(t *testing.T) {
	code, out, errOut := simrun("run", "-seeds", "100", "-json", "-check-determinism")
	require.Equal(t, exitOK, code, errOut)
	var summary map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &summary))
	for _, key := range []string{"seeds", "violations", "violationsByProperty", "failingSeeds", "schedulesPerSecond", "simSecondsPerWallSecond", "faultCoverage", "outcomeCoverage", "digest"} {
		assert.Contains(t, summary, key)
	}
	assert.Equal(t, 100.0, summary["seeds"])
	assert.Equal(t, 0.0, summary["violations"])
	assert.NotContains(t, summary, "interrupted", "there only when an interrupt ended the run")
	assert.Len(t, summary["digest"], 64)
	slowest, ok := summary["slowestSeeds"].([]any)
	require.True(t, ok, "slowestSeeds is a list")
	require.Len(t, slowest, 5)
	for _, entry := range slowest {
		assert.ElementsMatch(t, []string{"seed", "wallMs", "handoffs"}, keysOf(entry.(map[string]any)))
	}
}

func keysOf(m map[string]any) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

func TestRunDigestIsTheSameForAnyWorkerCount(t *testing.T) {
	digest := func(workers string) string {
		code, out, errOut := simrun("run", "-seeds", "150", "-json", "-workers", workers)
		require.Equal(t, exitOK, code, errOut)
		var s sim.Summary
		require.NoError(t, json.Unmarshal([]byte(out), &s))
		return s.Digest
	}
	assert.Equal(t, digest("1"), digest("3"))
}

func TestRunShardsAndOneSeed(t *testing.T) {
	code, out, _ := simrun("run", "-seeds", "10", "-shard", "2/5", "-json")
	require.Equal(t, exitOK, code)
	var s sim.Summary
	require.NoError(t, json.Unmarshal([]byte(out), &s))
	assert.Equal(t, 2, s.Seeds)
	code, out, _ = simrun("run", "-seed", "42", "-json")
	require.Equal(t, exitOK, code)
	require.NoError(t, json.Unmarshal([]byte(out), &s))
	assert.Equal(t, 1, s.Seeds)
	assert.Equal(t, int64(42), s.FirstSeed)
}

func TestReproPrintsTheTimelineAndWritesFiles(t *testing.T) {
	dir := t.TempDir()
	logPath, schedulePath := filepath.Join(dir, "run.jsonl"), filepath.Join(dir, "schedule.json")
	code, out, errOut := simrun("repro", "-seed", "12", "-log", logPath, "-schedule", schedulePath)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "seed 12:")
	assert.Contains(t, out, "turn/start 1")
	assert.Contains(t, out, "no violation")

	data, err := os.ReadFile(logPath)
	require.NoError(t, err)
	events, err := eventjson.Read(strings.NewReader(string(data)))
	require.NoError(t, err)
	require.NoError(t, harness.ValidateLog(events))

	// The saved schedule replays to the same timeline.
	code, again, _ := simrun("repro", schedulePath)
	require.Equal(t, exitOK, code)
	assert.Equal(t, out, again)
}

func TestReproRefusesABadScheduleFileAndWritesNothing(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"version": 1, "seed": 3, "strategy": "uniform", "swarm": {}, "plan": {"policy": {"mode": "normal", "initialDelayMs": -5, "maxDelayMs": 10, "jitterRatio": 0.1, "maxRetries": 2}}}`), 0o644))
	logPath := filepath.Join(dir, "out.jsonl")
	require.NoError(t, os.WriteFile(logPath, []byte("keep me\n"), 0o644))
	code, out, errOut := simrun("repro", bad, "-log", logPath)
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "initialDelayMs")
	kept, err := os.ReadFile(logPath)
	require.NoError(t, err)
	assert.Equal(t, "keep me\n", string(kept), "nothing overwritten on bad input")
}

func TestPlantNamesAnUnknownMutant(t *testing.T) {
	code, out, errOut := simrun("run", "-seeds", "5", "-plant", "no-such-bug", "-corpus", "")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "no mutant named no-such-bug (there are: ")
	assert.Contains(t, errOut, "drain-skipped")
}

func TestCataloguesList(t *testing.T) {
	code, out, _ := simrun("faults", "-coverage", "200")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "rate-limit-retry-after-above")
	assert.Regexp(t, `store-outage\s+host\s+\d+\.\d%`, out, "each fault with its coverage")
	code, _, errOut := simrun("faults", "-coverage", "-1")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "-coverage -1 is outside")
	code, out, _ = simrun("properties")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "durable-before-wait")
}

func TestReproRefusesAnUnwritableOutputBeforeWritingAnything(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "a.jsonl")
	code, out, errOut := simrun("repro", "-seed", "1", "-log", logPath, "-schedule", filepath.Join(dir, "missing", "s.json"))
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "does not exist")
	assert.NoFileExists(t, logPath, "nothing written when one output cannot be")
}

func TestRunRefusesAnEmptyShardAndAnOverflowingRange(t *testing.T) {
	code, _, errOut := simrun("run", "-seeds", "1", "-shard", "3/4")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "selects no seed")
	code, _, errOut = simrun("run", "-start", "9223372036854775807", "-seeds", "2")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "runs past the largest seed")
}

func TestReproWritesAnHTMLTimeline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.html")
	code, _, errOut := simrun("repro", "-seed", "7", "-html", path)
	require.Equal(t, exitOK, code, errOut)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(data), "<svg")
	assert.Contains(t, string(data), "turnsim timeline: seed 7")
	assert.NotContains(t, string(data), "<script src")
}

func TestFuzzPolicyPassesTheSeedFamilies(t *testing.T) {
	code, out, errOut := simrun("fuzz-policy", "-policies", "seed-default,seed-always", "-checks", "20")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "ok   seed-default (20 checks)")
	assert.Regexp(t, `seed \d+; repeat: go run ./cmd/simrun fuzz-policy -seed \d+ -checks 20 -policies seed-default,seed-always\n`, out)
	code, _, errOut = simrun("fuzz-policy", "-seed", "0")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "-seed 0: rapid reads 0")
	code, _, errOut = simrun("fuzz-policy", "-policies", "nonesuch")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, `unknown policy family "nonesuch"`)
}
