package cli

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/internal/unsafepolicy"
	"github.com/turnsim/turnsim/sim"
)

// A failing run prints, for each failing seed, one command that reproduces it; that command
// then shows the timeline and the same violation.
func TestPlantedFailureGivesOneCommandThatReproducesIt(t *testing.T) {
	corpus := t.TempDir()
	code, _, errOut := simrun("run", "-seeds", "100", "-plant", "wait-before-retry-record", "-corpus", corpus, "-shrink-time", "10s")
	require.Equal(t, exitViolation, code)
	saved := regexp.MustCompile(`minimised seed \d+ for durable-before-wait: size (\d+) → (\d+)`).FindStringSubmatch(errOut)
	require.NotNil(t, saved, errOut)
	before, _ := strconv.Atoi(saved[1])
	after, _ := strconv.Atoi(saved[2])
	assert.Less(t, after, before, "the corpus file's plan is smaller than the original")
	files, err := filepath.Glob(filepath.Join(corpus, "durable-before-wait-seed*.json"))
	require.NoError(t, err)
	require.Len(t, files, keptFailuresMax, "every failure is kept, up to the limit")
	assert.Contains(t, errOut, "kept the first 10 failing seeds")
	code, out, _ := simrun("repro", "-plant", "wait-before-retry-record", files[0])
	assert.Equal(t, exitViolation, code, "the saved schedule reproduces the failure")
	assert.Contains(t, out, "durable-before-wait")
	assert.Contains(t, errOut, "durable-before-wait")
	command := regexp.MustCompile(`reproduce: go run ./cmd/simrun (repro -seed \d+ -plant wait-before-retry-record)`).FindStringSubmatch(errOut)
	require.NotNil(t, command, errOut)

	code, out, _ = simrun(strings.Fields(command[1])...)
	assert.Equal(t, exitViolation, code)
	assert.Contains(t, out, "durable-before-wait")
	assert.Contains(t, out, "turn/start 1")
}

func TestPlantsListsEveryMutant(t *testing.T) {
	code, out, _ := simrun("plants")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "wait-before-retry-record")
	assert.Contains(t, out, "caught by durable-before-wait")
	code, listed, _ := simrun("mutate", "-list")
	require.Equal(t, exitOK, code)
	assert.Equal(t, out, listed, "plants is mutate -list")
}

// registerUnsafePolicy makes the deliberately unsafe family known to fuzz-policy for one test.
func registerUnsafePolicy(t *testing.T) {
	t.Cleanup(sim.RegisterPolicyFamily(sim.PolicyFamily{Name: unsafepolicy.Name, Draw: unsafepolicy.Draw}))
}

func TestShrinkMinimisesAFailingScheduleFile(t *testing.T) {
	dir := t.TempDir()
	original := filepath.Join(dir, "s.json")
	code, _, _ := simrun("repro", "-seed", "2", "-plant", "wait-before-retry-record", "-schedule", original) // seed 2 kills it
	require.Equal(t, exitViolation, code)
	minimised := filepath.Join(dir, "small.json")
	code, _, errOut := simrun("shrink", "-plant", "wait-before-retry-record", "-time", "10s", "-o", minimised, original)
	require.Equal(t, exitViolation, code, errOut)
	assert.Contains(t, errOut, "for durable-before-wait: size")
	code, out, _ := simrun("repro", "-plant", "wait-before-retry-record", minimised)
	assert.Equal(t, exitViolation, code)
	assert.Contains(t, out, "durable-before-wait")
}

func TestFuzzPolicyCatchesThePlantedUnsafePolicyWithMinimalParameters(t *testing.T) {
	registerUnsafePolicy(t)
	// A fixed seed: 50 checks of a drawn seed miss the defect now and then (a run must draw four
	// retries past the cap), and a test that fails on some seeds is a flaky test.
	code, out, errOut := simrun("fuzz-policy", "-seed", "1", "-policies", "planted-uncapped", "-checks", "50")
	require.Equal(t, exitViolation, code, out)
	assert.Contains(t, out, "FAIL planted-uncapped")
	assert.Contains(t, out, "[rapid] draw capMs: 1000\n", "shrunk to the smallest cap")
	assert.Contains(t, out, "[rapid] draw baseMs: ")
	assert.Contains(t, out, "delay-within-cap")
	assert.Contains(t, errOut, "broke a safety property")
}

// A fuzzing run names its seed (drawn, when -seed is not given) and the command that repeats it,
// and that command gives the same draws, the same outcome and the same report, whether the drawn
// seed's checks found the defect or not.
func TestFuzzPolicyRepeatsFromItsSeed(t *testing.T) {
	registerUnsafePolicy(t)
	code, out, errOut := simrun("fuzz-policy", "-policies", "planted-uncapped", "-checks", "50", "-json")
	require.Contains(t, []int{exitOK, exitViolation}, code, errOut)
	var first fuzzPolicyReport
	require.NoError(t, json.Unmarshal([]byte(out), &first))
	require.NotZero(t, first.Seed)
	assert.Equal(t, code, first.Failed, out)
	if code == exitViolation {
		assert.Contains(t, errOut, "repeat: "+first.Repeat, "a failure says how to repeat it")
	}
	repeat := strings.Fields(strings.TrimPrefix(first.Repeat, "go run ./cmd/simrun "))
	again, againOut, _ := simrun(append(repeat, "-json")...)
	require.Equal(t, code, again)
	assert.JSONEq(t, out, againOut, "the same seed, the same draws")
}

// replay takes -plant as the other commands that run the agent do: the incident's log replays in
// a build with the mutant planted, and the repro line it prints keeps the mutant.
func TestReplayRunsInAPlantedBuild(t *testing.T) {
	dir := t.TempDir()
	log, schedule := filepath.Join(dir, "incident.jsonl"), filepath.Join(dir, "s.json")
	code, _, errOut := simrun("repro", "-seed", "4", "-log", log)
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut := simrun("replay", "-plant", "wait-before-retry-record", log, "-o", schedule)
	require.LessOrEqual(t, code, exitViolation, errOut)
	assert.Contains(t, out, "reproduce: go run ./cmd/simrun repro -plant wait-before-retry-record "+schedule)
}

// -plant is read as the flag package reads it: a value spelled plant is no flag, the last -plant
// wins, and "--" ends the flags.
func TestPlantedArgReadsTheFlagOnly(t *testing.T) {
	for args, want := range map[string]string{
		"-seed 3 -plant drain-skipped":               "drain-skipped",
		"--plant=drain-skipped -json":                "drain-skipped",
		"-log plant -seed 3":                         "",
		"-seeds 100 -corpus plant -json":             "",
		"-o plant -seed 16":                          "",
		"-plant drain-skipped -plant budget-ignored": "budget-ignored",
		"-seed 3 -- -plant drain-skipped":            "",
		"-plant=drain-skipped -log -plant":           "drain-skipped",
	} {
		assert.Equal(t, want, plantedArg(strings.Fields(args)), args)
	}
}
