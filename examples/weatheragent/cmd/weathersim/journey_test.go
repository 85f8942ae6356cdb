package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"example.com/weatheragent/weathersim"
	"github.com/turnsim/turnsim/sim"
)

// A user's journey through its own command, as the README tells it: shards of a run merge into
// the unsharded run's summary, and the agent's registered policy family is fuzzed on this agent.
// (Checking a log and replaying a corpus file: TestOwnPropertyAndToolShowInSimrunOutput and
// TestMutantThroughOwnSimrun.)
func TestShardsMergeIntoTheWholeRun(t *testing.T) {
	code, whole, stderr := weathersimRun("run", "-seeds", "300", "-json", "-corpus", "")
	require.Equal(t, 0, code, stderr)
	dir := t.TempDir()
	var shards []string
	for _, shard := range []string{"1/3", "2/3", "3/3"} {
		code, out, stderr := weathersimRun("run", "-seeds", "300", "-shard", shard, "-json", "-corpus", "")
		require.Equal(t, 0, code, stderr)
		file := filepath.Join(dir, "shard-"+shard[:1]+".json")
		require.NoError(t, os.WriteFile(file, []byte(out), 0o644))
		shards = append(shards, file)
	}
	code, merged, stderr := weathersimRun(append([]string{"merge", "-json"}, shards...)...)
	require.Equal(t, 0, code, stderr)
	var want, got map[string]any
	require.NoError(t, json.Unmarshal([]byte(whole), &want))
	require.NoError(t, json.Unmarshal([]byte(merged), &got))
	for _, key := range []string{"seeds", "violations", "faultCoverage", "outcomeCoverage", "handoffs", "digest"} {
		assert.Equal(t, want[key], got[key], key)
	}
}

func TestItsPolicyFamilyIsFuzzedOnThisAgent(t *testing.T) {
	t.Cleanup(sim.RegisterPolicyFamily(weathersim.BackoffFamily)) // as main does
	code, out, stderr := weathersimRun("fuzz-policy", "-policies", "forecast-backoff", "-checks", "20", "-seed", "7")
	require.Equal(t, 0, code, out+stderr)
	assert.Contains(t, out, "ok   forecast-backoff (20 checks)")

	params := filepath.Join(t.TempDir(), "params.json")
	require.NoError(t, os.WriteFile(params, []byte(`{"forecast-backoff": {"baseMs": -5}}`), 0o644))
	code, _, stderr = weathersimRun("policy", "-policies", "forecast-backoff", "-params", params)
	assert.Equal(t, 2, code, "a bad base is refused")
	assert.Contains(t, stderr, "baseMs")
}
