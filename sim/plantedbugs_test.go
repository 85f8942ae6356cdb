//go:build plantedbugs

package sim

import (
	"testing"

	"github.com/stretchr/testify/require"

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
