package sim

import (
	"os"
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

// TestSynctestSpeedRatio measures schedules per second on the deterministic scheduler and on the
// production runtime under synctest, and logs the ratio. It measures, it asserts nothing about
// speed, and it runs only when asked: TURNSIM_SYNCTEST_RATIO=1 go test -run SynctestSpeed -v ./sim/
func TestSynctestSpeedRatio(t *testing.T) {
	if os.Getenv("TURNSIM_SYNCTEST_RATIO") == "" {
		t.Skip("set TURNSIM_SYNCTEST_RATIO=1 to measure")
	}
	const seeds = 2000
	simulated := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			for seed := int64(1); seed <= seeds; seed++ {
				RunSchedule(NewSchedule(seed, nil))
			}
		}
	})
	production := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			for seed := int64(1); seed <= seeds; seed++ {
				synctest.Test(t, func(t *testing.T) {
					PlaySchedule(NewSchedule(seed, nil), harness.NewProductionRuntime(clock.New()))
				})
			}
		}
	})
	perSecond := func(r testing.BenchmarkResult) float64 { return seeds * 1e9 / float64(r.NsPerOp()) }
	t.Logf("scheduler: %.0f schedules/s; production runtime under synctest: %.0f schedules/s; ratio %.2f",
		perSecond(simulated), perSecond(production), perSecond(simulated)/perSecond(production))
}
