//go:build plantedbugs

package sim

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/internal/plant"
)

// A power loss on its own catches a store that syncs before it writes: the event an append
// returned for is gone after the restart (not only from the synced bytes at the end of the run).
func TestPlantedSyncBeforeWriteIsCaughtByAPowerLoss(t *testing.T) {
	require.NoError(t, plant.Set(plant.SyncBeforeWrite))
	defer plant.Set("")
	for seed := int64(1); seed <= plantedSeedsMax; seed++ {
		for _, v := range RunSchedule(NewSchedule(seed, []string{faults.PowerLoss})).Violations {
			if v.Property == "no-acknowledged-loss" && strings.Contains(v.Message, "acknowledged before a crash") {
				t.Logf("caught at seed %d: %s", seed, v)
				return
			}
		}
	}
	t.Fatalf("no power loss in %d seeds took an acknowledged event from a store that syncs before it writes", plantedSeedsMax)
}

// A process crash alone never does: what was written survives it, synced or not.
func TestPlantedSyncBeforeWriteLosesNothingToAProcessCrash(t *testing.T) {
	require.NoError(t, plant.Set(plant.SyncBeforeWrite))
	defer plant.Set("")
	for seed := int64(1); seed <= 300; seed++ {
		for _, v := range RunSchedule(NewSchedule(seed, []string{faults.Crash})).Violations {
			require.False(t, v.Property == "no-acknowledged-loss" && strings.Contains(v.Message, "before a crash"), "seed %d: %s", seed, v)
		}
	}
}
