//go:build plantedbugs

package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/internal/plant"
	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim/sched"
)

// A harness that livelocks (spin-on-unknown-tool: a task that spawns tasks forever, virtual time
// standing still) costs a seed no more than its limits: it ends with a run-completes finding
// within the plan's handoff and task limits, not after the scheduler's default million handoffs.
func TestLivelockEndsAtThePlansLimits(t *testing.T) {
	require.NoError(t, plant.Set(plant.SpinOnUnknownTool))
	defer plant.Set("")
	livelocked := 0
	for seed := int64(1); seed <= 300; seed++ {
		s := NewSchedule(seed, nil)
		o := RunSchedule(s)
		if len(o.Report.Findings) == 0 {
			continue
		}
		livelocked++
		kind := o.Report.Findings[0].Kind
		assert.Contains(t, []string{sched.FindingHandoffLimit, sched.FindingTaskLimit}, kind, "seed %d", seed)
		assert.LessOrEqual(t, o.Report.Handoffs, handoffLimit(s), "seed %d", seed)
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
