package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim"
)

// runShards runs `run -json` on each of n shards of count seeds, writes each summary to dir, and
// returns their paths.
func runShards(t *testing.T, dir string, count, n int, extra ...string) []string {
	t.Helper()
	var paths []string
	for i := 1; i <= n; i++ {
		args := append([]string{"run", "-seeds", fmt.Sprint(count), "-shard", fmt.Sprintf("%d/%d", i, n), "-json", "-corpus", ""}, extra...)
		code, out, errOut := simrun(args...)
		require.Contains(t, []int{exitOK, exitViolation}, code, errOut)
		paths = append(paths, writeFile(t, dir, fmt.Sprintf("shard%d.json", i), []byte(out)))
	}
	return paths
}

func decodeObject(t *testing.T, text string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(text), &m), text)
	return m
}

// The merge of the 4 shards' summaries equals the unsharded run's summary, key by key: every
// count, coverage, failure and list exactly, and the digest (the shards' digests add up).
// Timings are the shards' together.
func TestMergeOfFourShardsEqualsTheUnshardedRun(t *testing.T) {
	count := 2000 // TURNSIM_MERGE_SEEDS=10000 for the figure (about 20,000 seed runs)
	if n, err := strconv.Atoi(os.Getenv("TURNSIM_MERGE_SEEDS")); err == nil && n > 0 {
		count = n
	} else if testing.Short() {
		count = 400
	}
	dir := t.TempDir()
	code, whole, errOut := simrun("run", "-seeds", fmt.Sprint(count), "-json", "-corpus", "")
	require.Contains(t, []int{exitOK, exitViolation}, code, errOut)
	mergeCode, merged, mergeErr := simrun(append([]string{"merge", "-json"}, runShards(t, dir, count, 4)...)...)
	assert.Equal(t, code, mergeCode, mergeErr)

	want, got := decodeObject(t, whole), decodeObject(t, merged)
	assert.ElementsMatch(t, keysOf(want), keysOf(got), "the same keys")
	for _, key := range []string{"seeds", "firstSeed", "shard", "violations", "violationsByProperty", "failingSeeds", "failures", "faultCoverage", "outcomeCoverage", "handoffs", "determinismChecked", "failingSeedCount", "digest"} {
		assert.Equal(t, want[key], got[key], key)
	}
	assert.InDelta(t, want["simSeconds"], got["simSeconds"], 1e-6, "simSeconds: the runner adds float seconds, merge whole milliseconds")
	assert.Len(t, got["digest"], 64)
	for _, key := range []string{"wallSeconds", "schedulesPerSecond", "schedulesPerSecondPerCore", "simSecondsPerWallSecond", "workers"} {
		assert.Positive(t, got[key], key)
	}
	assert.Len(t, got["slowestSeeds"], 5)

	_, text, _ := simrun(append([]string{"merge"}, filepath.Join(dir, "shard1.json"), filepath.Join(dir, "shard2.json"), filepath.Join(dir, "shard3.json"), filepath.Join(dir, "shard4.json"))...)
	assert.Contains(t, text, fmt.Sprintf("seeds              %d (from 1, shard 1/1,", count))
}

// Failures of different shards come back in seed order, and the slowest seeds of all shards are
// ranked together, as one run would list them.
func TestMergeOrdersFailuresAndSlowestSeeds(t *testing.T) {
	shard := func(index int, failing []int64, slow ...sim.SlowSeed) runReport {
		r := runReport{Summary: sim.Summary{Seeds: 2, FirstSeed: 1, Shard: fmt.Sprintf("%d/2", index), Workers: 1,
			ViolationsByProperty: map[string]int{}, FaultCoverage: map[string]int{"crash": 1}, OutcomeCoverage: map[string]int{},
			FailingSeeds: failing, SlowestSeeds: slow}}
		for _, seed := range failing {
			r.Failures = append(r.Failures, sim.SeedViolations{Seed: seed})
			r.Violations++
			r.FailingSeedCount++
			r.ViolationsByProperty["turn-settled"]++
		}
		return r
	}
	m, err := mergeSummaries([]string{"a", "b"}, []runReport{
		shard(2, []int64{2, 4}, sim.SlowSeed{Seed: 2, WallMs: 5}, sim.SlowSeed{Seed: 4, WallMs: 1}),
		shard(1, []int64{3}, sim.SlowSeed{Seed: 3, WallMs: 5}, sim.SlowSeed{Seed: 1, WallMs: 9}),
	})
	require.NoError(t, err)
	assert.Equal(t, []int64{2, 3, 4}, m.FailingSeeds)
	assert.Equal(t, []int64{2, 3, 4}, []int64{m.Failures[0].Seed, m.Failures[1].Seed, m.Failures[2].Seed})
	assert.Equal(t, map[string]int{"turn-settled": 3}, m.ViolationsByProperty)
	assert.Equal(t, map[string]int{"crash": 2}, m.FaultCoverage)
	assert.Equal(t, []sim.SlowSeed{{Seed: 1, WallMs: 9}, {Seed: 2, WallMs: 5}, {Seed: 3, WallMs: 5}, {Seed: 4, WallMs: 1}}, m.SlowestSeeds)
}

// merge reports each failing seed as run does: its violations, then the command that reproduces
// it (before, merge printed the command alone).
func TestMergeReportsFailuresAsRunDoes(t *testing.T) {
	violation := properties.Violation{Property: "turn-settled", Message: "turn 1 has no turn/end", Seq: 7, AtMs: 1500}
	dir := t.TempDir()
	var paths []string
	for i := 1; i <= 2; i++ {
		r := runReport{Faults: []string{}, Summary: sim.Summary{Seeds: 2, FirstSeed: 1, Shard: fmt.Sprintf("%d/2", i), Workers: 1,
			ViolationsByProperty: map[string]int{}, FaultCoverage: map[string]int{}, OutcomeCoverage: map[string]int{},
			FailingSeeds: []int64{}, Failures: []sim.SeedViolations{}, Digest: strings.Repeat("0", 64)}}
		if i == 2 {
			r.Violations, r.ViolationsByProperty["turn-settled"] = 1, 1
			r.FailingSeeds, r.FailingSeedCount = []int64{2}, 1
			r.Failures = []sim.SeedViolations{{Seed: 2, Violations: []properties.Violation{violation}}}
		}
		data, err := json.Marshal(r)
		require.NoError(t, err)
		paths = append(paths, writeFile(t, dir, fmt.Sprintf("shard%d.json", i), data))
	}
	code, _, errOut := simrun(append([]string{"merge"}, paths...)...)
	assert.Equal(t, exitViolation, code, errOut)
	assert.Contains(t, errOut, "FAIL seed 2\n  "+violation.String()+"\n  reproduce: go run ./cmd/simrun repro -seed 2\n")
}

// Summaries that are not every shard of one run, once each, are refused, naming the problem.
func TestMergeRefusesAnIncompleteOrMixedSetOfShards(t *testing.T) {
	dir := t.TempDir()
	four := runShards(t, dir, 40, 4)
	otherDir := t.TempDir()
	otherCount := runShards(t, otherDir, 44, 4)
	two := runShards(t, t.TempDir(), 40, 2)
	started := writeFile(t, dir, "started.json", []byte(strings.Replace(readText(t, four[3]), `"firstSeed":1,`, `"firstSeed":7,`, 1)))
	extraKey := writeFile(t, dir, "extra.json", []byte(strings.Replace(readText(t, four[3]), `{`, `{"digestVersion":2,`, 1)))
	renamedKey := writeFile(t, dir, "renamed.json", []byte(strings.Replace(readText(t, four[3]), `"handoffs":`, `"handoffz":`, 1)))
	missingKey := writeFile(t, dir, "missing.json", []byte(strings.Replace(readText(t, four[3]), `"determinismChecked":false,`, ``, 1)))
	// Counts no run can produce (the outside review cancelled a real failure with a negative one).
	edited := func(name string, edit func(s map[string]any)) string {
		var s map[string]any
		require.NoError(t, json.Unmarshal([]byte(readText(t, four[3])), &s))
		edit(s)
		data, err := json.Marshal(s)
		require.NoError(t, err)
		return writeFile(t, dir, name, data)
	}
	negative := edited("negative.json", func(s map[string]any) { s["violations"] = -2 })
	outside := edited("outside.json", func(s map[string]any) {
		s["violations"], s["failingSeedCount"], s["failingSeeds"] = 1, 1, []int64{999999999}
		s["violationsByProperty"] = map[string]int{"turn-settled": 1}
	})
	overCovered := edited("covered.json", func(s map[string]any) { s["faultCoverage"].(map[string]any)["rate-limit"] = 1e9 })
	interrupted := edited("interrupted.json", func(s map[string]any) { s["interrupted"] = true })
	cases := []struct {
		name  string
		files []string
		says  string
	}{
		{"a shard missing", four[:3], "shard 4/4 is missing"},
		{"a shard twice", []string{four[0], four[1], four[2], four[2]}, "are both shard 3/4"},
		{"another n", []string{four[0], four[1], four[2], two[1]}, "shards of one run share n"},
		{"another -seeds", []string{four[0], four[1], four[2], otherCount[3]}, "the shards ran different -seeds"},
		{"another -start", []string{four[0], four[1], four[2], started}, "starts at seed 7"},
		{"an unknown key", []string{four[0], four[1], four[2], extraKey}, `unknown field "digestVersion"`},
		{"a key renamed", []string{four[0], four[1], four[2], renamedKey}, `unknown field "handoffz"`},
		{"a key missing", []string{four[0], four[1], four[2], missingKey}, `no "determinismChecked" key`},
		{"a negative count", []string{four[0], four[1], four[2], negative}, "negative counts (violations -2"},
		{"a failing seed outside the shard", []string{four[0], four[1], four[2], outside}, "failing seed 999999999 is not one of shard 4/4's 10 seeds from 1"},
		{"coverage above the seeds", []string{four[0], four[1], four[2], overCovered}, "faultCoverage rate-limit is 1000000000 of 10 seeds"},
		{"an interrupted shard", []string{four[0], four[1], four[2], interrupted}, "a run that was interrupted"},
		{"not JSON", []string{writeFile(t, dir, "log.jsonl", []byte("{\"seq\":1}\n{\"seq\":2}\n"))}, "not the JSON object of run -json"},
		{"no file", nil, "merge needs the -json summaries"},
		{"a folder", []string{dir}, "is a folder"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := simrun(append([]string{"merge"}, c.files...)...)
			assert.Equal(t, exitUsage, code, errOut)
			assert.Empty(t, out)
			assert.Contains(t, errOut, c.says)
		})
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}
