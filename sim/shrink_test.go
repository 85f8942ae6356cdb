package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/faults"
)

// Shrinking keeps exactly what the failure needs: here, "a RATE_LIMIT answer and a cancel".
func TestShrinkKeepsOnlyWhatTheFailureNeeds(t *testing.T) {
	needs := func(s Schedule) bool {
		limited, cancelled := false, false
		for _, a := range s.Plan.Answers {
			limited = limited || a.Fault == faults.RateLimit
		}
		for _, a := range s.Plan.Actions {
			cancelled = cancelled || a.Kind == faults.ActCancel
		}
		return limited && cancelled
	}
	var start Schedule
	for seed := int64(1); ; seed++ {
		start = NewSchedule(seed, nil)
		if needs(start) && Size(start) > 20 {
			break
		}
	}
	r := shrinkWhile(start, needs, time.Minute)
	require.True(t, needs(r.Schedule), "the result still fails")
	require.NoError(t, r.Schedule.Validate())
	assert.True(t, r.Complete)
	assert.Len(t, r.Schedule.Plan.Answers, 1)
	assert.Len(t, r.Schedule.Plan.Actions, 1)
	assert.Empty(t, r.Schedule.Plan.Refusals)
	assert.Equal(t, 2, r.SizeAfter, "one answer, one action")
	assert.Greater(t, r.SizeBefore, r.SizeAfter)
	assert.Len(t, r.Schedule.Swarm, 2, "the swarm names just the faults the plan uses")
	assert.Contains(t, r.Schedule.Swarm, faults.RateLimit)
}

// A budget of zero tries nothing and returns the schedule as it was.
func TestShrinkRespectsItsBudget(t *testing.T) {
	s := NewSchedule(5, nil)
	r := shrinkWhile(s, func(Schedule) bool { return true }, 0)
	assert.Zero(t, r.Runs)
	assert.False(t, r.Complete)
	assert.Equal(t, Size(s), r.SizeAfter)
}
