package sim

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim/sched"
)

// The tests here check how the world catches one particular mutant (internal/mutants), so they
// run only in a test binary built with that mutant planted (RequireMutant); .ci/run builds them
// so, for every mutant a test of sim/ asks for.

// requireMutant is RequireMutant with simrun's mutate command.
func requireMutant(t *testing.T, name string) {
	t.Helper()
	RequireMutant(t, name, "go run ./cmd/simrun")
}

// mutantSeedsMax is how many seeds a mutant may take to be caught in these tests (simrun mutate
// holds every mutant to 10,000; these need far fewer).
const mutantSeedsMax = 2000

// A power loss on its own catches a store that syncs before it writes: the event an append
// returned for is gone after the restart (not only from the synced bytes at the end of the run).
func TestMutantSyncBeforeWriteIsCaughtByAPowerLoss(t *testing.T) {
	requireMutant(t, "sync-before-write")
	for seed := int64(1); seed <= mutantSeedsMax; seed++ {
		for _, v := range RunSchedule(NewSchedule(seed, []string{faults.PowerLoss})).Violations {
			if v.Property == "no-acknowledged-loss" && strings.Contains(v.Message, "acknowledged before a crash") {
				t.Logf("caught at seed %d: %s", seed, v)
				return
			}
		}
	}
	t.Fatalf("no power loss in %d seeds took an acknowledged event from a store that syncs before it writes", mutantSeedsMax)
}

// A process crash alone never does: what was written survives it, synced or not.
func TestMutantSyncBeforeWriteLosesNothingToAProcessCrash(t *testing.T) {
	requireMutant(t, "sync-before-write")
	for seed := int64(1); seed <= 300; seed++ {
		for _, v := range RunSchedule(NewSchedule(seed, []string{faults.Crash})).Violations {
			require.False(t, v.Property == "no-acknowledged-loss" && strings.Contains(v.Message, "before a crash"), "seed %d: %s", seed, v)
		}
	}
}

// A harness that livelocks (spin-on-unknown-tool: a task that spawns tasks forever, virtual time
// standing still) costs a seed no more than its limits: it ends with a run-completes finding
// within the plan's handoff and task limits, not after the scheduler's default million handoffs.
func TestMutantLivelockEndsAtThePlansLimits(t *testing.T) {
	requireMutant(t, "spin-on-unknown-tool")
	livelocked := 0
	for seed := int64(1); seed <= 300; seed++ {
		s := NewSchedule(seed, nil)
		var o Outcome
		w := runWorldInto(s, Agent{}, nil, &o)
		if len(o.Report.Findings) == 0 {
			continue
		}
		livelocked++
		kind := o.Report.Findings[0].Kind
		assert.Contains(t, []string{sched.FindingEventLimit, sched.FindingTaskLimit}, kind, "seed %d", seed)
		// Everything the budget counts, not the handoffs alone (which the budget bounds anyway):
		// the run stops at the first scheduling point past it.
		assert.LessOrEqual(t, w.scheduler.Spent(), eventLimit(s)+10, "seed %d: a few appends may come before the next scheduling point", seed)
		assert.LessOrEqual(t, len(o.Report.Findings[0].Tasks), taskLimit(s)+1, "seed %d", seed)
		assert.True(t, hasViolation(o.Violations, "run-completes"), "seed %d", seed)
	}
	assert.Positive(t, livelocked)
}

func hasViolation(vs []properties.Violation, property string) bool {
	for _, v := range vs {
		if v.Property == property {
			return true
		}
	}
	return false
}
