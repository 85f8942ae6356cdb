package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/turnsim/turnsim/faults"
)

// A run's limits grow with its plan, far above what a run of it needs: the event budget several
// times what any of these seeds spends of it (counted as countEvent counts: scheduling decisions,
// preemption points and appends, not handoffs alone), and a step runs at most one answer's calls.
func TestRunLimitsGrowWithThePlan(t *testing.T) {
	small := NewSchedule(1, nil)
	big := cloneSchedule(small)
	for range 100 {
		big.Plan.Answers = append(big.Plan.Answers, faults.Answer{Chunks: 3, Finish: "completed"})
		big.Plan.Actions = append(big.Plan.Actions, faults.Action{Kind: faults.ActWaitIdle})
	}
	assert.Greater(t, eventLimit(big), eventLimit(small))
	assert.Greater(t, taskLimit(big), taskLimit(small))
	assert.GreaterOrEqual(t, eventLimit(small), 16*Size(small))
	assert.Greater(t, taskLimit(small), faults.CallsMax+len(small.Plan.Actions))
	for seed := int64(1); seed <= 200; seed++ {
		s := NewSchedule(seed, nil)
		var o Outcome
		w := runWorldInto(s, Agent{}, nil, &o)
		assert.Empty(t, o.Report.Findings, "seed %d", seed)
		// What the budget counts: scheduling decisions, preemption points, appends (countEvent).
		assert.Less(t, 4*w.scheduler.Spent(), eventLimit(s), "seed %d: a quarter of the limit is plenty", seed)
	}
}

// The slowest seeds are listed slowest first, ties by seed, at most n of them.
func TestSlowestSeeds(t *testing.T) {
	results := []SeedResult{{Seed: 1, Wall: 3_000_000, Handoffs: 10}, {Seed: 2, Wall: 9_000_000, Handoffs: 99}, {Seed: 3, Wall: 3_000_000}, {Seed: 4, Wall: 1}}
	assert.Equal(t, []SlowSeed{{Seed: 2, WallMs: 9, Handoffs: 99}, {Seed: 1, WallMs: 3, Handoffs: 10}, {Seed: 3, WallMs: 3}}, slowestSeeds(results, 3))
	assert.Len(t, slowestSeeds(results[:1], 5), 1)
	assert.Empty(t, slowestSeeds(nil, 5))
}
