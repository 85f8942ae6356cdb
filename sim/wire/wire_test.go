package wire_test

import (
	"runtime"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/sim/sched"
	_ "github.com/turnsim/turnsim/sim/wire"
)

// With the adapters on the wire, the default mix keeps every property, every seed runs the same
// twice, every wire fault strikes, and the runs leave no goroutine behind (the adapters' own
// deadlines and watches are runtime tasks, not goroutines of their own).
func TestWireKeepsEveryPropertyAndStrikesEveryFault(t *testing.T) {
	t.Cleanup(func() { sched.ReleaseIdle(); goleak.VerifyNone(t) })
	require.True(t, sim.WireRegistered())
	n := 4000
	if testing.Short() {
		n = 1000
	}
	s := sim.RunSeeds(sim.RunOptions{Start: 1, Count: n, CheckDeterminism: true})
	assert.Zero(t, s.Violations, "violations: %v; first failures: %+v", s.ViolationsByProperty, s.Failures[:min(3, len(s.Failures))])
	for _, f := range faults.Catalogue() {
		if f.Group == faults.GroupWire && !testing.Short() {
			// A wire seed is rare (faults.WireShare) and puts three answers on the wire, so the
			// rarest wire fault strikes in about one seed in 800.
			assert.GreaterOrEqual(t, s.FaultCoverage[f.Name], n/2000, "wire fault %s struck in %d of %d seeds", f.Name, s.FaultCoverage[f.Name], n)
		}
	}
}

// The same seeds give the same digest whatever the workers and GOMAXPROCS, the wire's included.
func TestWireDigestIndependentOfWorkersAndGOMAXPROCS(t *testing.T) {
	digests := map[string]bool{}
	for _, procs := range []int{1, 4} {
		previous := runtime.GOMAXPROCS(procs)
		s := sim.RunSeeds(sim.RunOptions{Start: 1, Count: 600, Workers: procs})
		runtime.GOMAXPROCS(previous)
		digests[s.Digest] = true
	}
	assert.Len(t, digests, 1)
}

// A seed's plan differs from a wire-less binary's only in the answers its wire draw takes, and
// only a share of seeds draw a wire.
func TestWireChangesOnlyItsAnswers(t *testing.T) {
	wired := 0
	for seed := int64(1); seed <= 400; seed++ {
		s := sim.NewSchedule(seed, nil)
		for _, a := range s.Plan.Answers {
			if a.Wire != nil {
				wired++
				break
			}
		}
	}
	assert.InDelta(t, faults.WireShare, float64(wired)/400, 0.04)
}

// Wire seeds on the production runtime inside a testing/synctest bubble: the adapters' deadlines
// and the body's waits run on real goroutines and the bubble's fake clock, and the properties
// hold there too.
func TestWireOnTheProductionRuntimeUnderSynctest(t *testing.T) {
	played, exchanges := 0, 0
	for seed := int64(1); played < 30 && seed <= 2000; seed++ {
		schedule := sim.NewSchedule(seed, nil)
		if !slices.ContainsFunc(schedule.Plan.Answers, func(a faults.Answer) bool { return a.Wire != nil }) {
			continue
		}
		played++
		synctest.Test(t, func(t *testing.T) {
			o := sim.PlaySchedule(schedule, harness.NewProductionRuntime(clock.New()))
			assert.Empty(t, o.Violations, "seed %d", seed)
			exchanges += len(o.Trace.Wire)
		})
	}
	assert.Equal(t, 30, played)
	assert.Greater(t, exchanges, 30, "the wire answered requests")
}
