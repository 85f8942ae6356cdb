package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replayableFaults are the faults whose marks a production agent's log keeps: what
// ScheduleFromLog can read back. The store's refusals, observers, goexits, compaction and
// same-instant races leave no trace in the log that tells them apart, or cannot happen in a
// production process.
var replayableFaults = []string{"rate-limit", "rate-limit-retry-after-below", "rate-limit-retry-after-equal", "rate-limit-retry-after-above", "retry-after-invalid", "server", "timeout", "transport", "empty-response", "plain-error", "fail-mid-stream", "max-tokens", "tool-calls", "slow-stream", "tool-latency", "tool-long-latency", "tool-error", "tool-panic", "tool-unknown", "tool-ignores-cancel", "steer", "inject", "followup", "cancel-user", "cancel-parent", "cancel-hook", "dispose", "plugin-end", "crash", "wrapped-failure", "stream-ignores-cancel"}

// replayableSchedule is seed's schedule of the replayable faults, with what a production host
// does not do taken out: a crash kills the process between appends, never inside one, and the
// disk keeps what was written. It retries with the plan's policy: a derivation reads a policy
// from the log's policyKey, and a zoo strategy's key is not one.
func replayableSchedule(seed int64) Schedule {
	s := NewSchedule(seed, replayableFaults)
	s.Plan.CompactionBudget, s.Plan.CompactionDelayMs, s.Plan.CompactionFailures, s.Plan.Refusals = 0, 0, 0, nil
	s.Plan.RetryStrategy = ""
	for i := range s.Plan.Actions {
		a := &s.Plan.Actions[i]
		a.InAppend, a.Written, a.Unsynced, a.Concurrent = false, "", "", false
	}
	return s
}

// A simulated run's log, read back as an incident, derives a schedule whose run writes it again,
// event for event, for nearly every seed: the derivation reads the harness's story right. The
// few misses are streams that pace their tool calls and ignore cancellation, which the world
// plays and no production adapter does. (sim/wire/replaydiff holds the production runtime to it.)
func TestReplayWritesASimulatedLogAgain(t *testing.T) {
	const seeds = 300
	matched := 0
	for seed := int64(1); seed <= seeds; seed++ {
		out := RunSchedule(replayableSchedule(seed))
		events, err := ReadSessionLog("seed.jsonl", out.JSONL)
		require.NoError(t, err, "seed %d", seed)
		r, err := ReplayLog("seed.jsonl", events, out.JSONL, ReplayOptions{Search: 8, LateMs: 5})
		require.NoError(t, err, "seed %d", seed)
		if r.Matched() {
			matched++
			assert.Empty(t, r.Incident, "seed %d: the incident's log breaks nothing", seed)
			continue
		}
		t.Logf("seed %d: %s", seed, r.Mismatch)
	}
	assert.GreaterOrEqual(t, matched, seeds*98/100, "%d of %d simulated logs replayed to themselves", matched, seeds)
}

// The same derived schedule gives the same log, byte for byte, on every run: a replay is a
// schedule like any other.
func TestReplayScheduleIsDeterministic(t *testing.T) {
	out := RunSchedule(replayableSchedule(7))
	events, err := ReadSessionLog("seed.jsonl", out.JSONL)
	require.NoError(t, err)
	d, err := ScheduleFromLog("seed.jsonl", events)
	require.NoError(t, err)
	data, err := d.Schedule.MarshalIndent()
	require.NoError(t, err)
	back, err := ParseSchedule(data)
	require.NoError(t, err)
	assert.Equal(t, RunSchedule(d.Schedule).Digest, RunSchedule(back).Digest)
}
