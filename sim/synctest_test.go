package sim

import (
	"testing"
	"testing/synctest"

	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"

	"github.com/turnsim/turnsim/harness"
)

// The same schedules on the production runtime (real goroutines, the real clock) inside a
// testing/synctest bubble, whose fake time makes them fast but not reproducible. The world's
// properties hold there too.
func TestSchedulesOnTheProductionRuntimeUnderSynctest(t *testing.T) {
	for seed := int64(1); seed <= int64(sweep(200)); seed++ {
		synctest.Test(t, func(t *testing.T) {
			o := PlaySchedule(NewSchedule(seed, nil), harness.NewProductionRuntime(clock.New()))
			assert.Empty(t, o.Violations, "seed %d", seed)
		})
	}
}
