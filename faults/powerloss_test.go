package faults

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A power loss (right after a cut-back too) is a crash that also says what the disk keeps of its
// unsynced bytes; no other crash says so. The default mix plans one for well over 1% of seeds.
func TestPowerLossIsDrawnLikeACrashThatDropsUnsyncedBytes(t *testing.T) {
	const seeds = 1000
	planned := 0
	kept := map[string]int{}
	for seed := int64(1); seed <= seeds; seed++ {
		rng := rand.New(rand.NewSource(seed))
		plan := DrawPlan(rng, DrawSwarm(rng, nil))
		require.NoError(t, plan.Validate())
		found := false
		for _, a := range plan.Actions {
			if a.Kind != ActCrash {
				continue
			}
			if a.Fault == PowerLoss || a.Fault == PowerLossAfterCutBack {
				assert.Contains(t, []string{UnsyncedDropped, UnsyncedTorn}, a.Unsynced)
				kept[a.Unsynced]++
				found = true
			} else {
				assert.Empty(t, a.Unsynced, "only a power loss drops unsynced bytes")
			}
		}
		if found {
			planned++
		}
	}
	assert.Greater(t, planned, seeds/100, "seeds with a power loss")
	assert.Positive(t, kept[UnsyncedDropped])
	assert.Positive(t, kept[UnsyncedTorn])
	t.Logf("%d of %d seeds plan a power loss; unsynced bytes: %v", planned, seeds, kept)
}

func TestAnUnknownUnsyncedIsRefused(t *testing.T) {
	a := Action{Kind: ActCrash, Fault: PowerLoss, Unsynced: "half"}
	err := a.validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `crash unsynced "half" is not empty, dropped or torn`)
}
