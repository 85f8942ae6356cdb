package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/internal/unsafepolicy"
)

// Policy fuzzing's safety properties catch a strategy that breaks its own cap (one that caps
// only its first three delays) within a few hundred seeds.
func TestAnUncappedPolicyIsCaughtByDelayWithinCap(t *testing.T) {
	for seed := int64(1); seed <= 300; seed++ {
		o := RunScheduleWith(NewSchedule(seed, nil), func() harness.RetryStrategy { return unsafepolicy.Uncapped{BaseMs: 500, MaxMs: 1000} })
		for _, v := range o.Violations {
			if v.Property == "delay-within-cap" {
				t.Logf("caught at seed %d: %s", seed, v)
				return
			}
		}
	}
	assert.Fail(t, "an uncapped delay is never reported by delay-within-cap in 300 seeds")
}
