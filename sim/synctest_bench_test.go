package sim

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/sim/sched"
)

// The fair comparison with testing/synctest: the same schedules, doing the same work, on the
// deterministic scheduler and on the production runtime (real goroutines, the real clock) inside
// a synctest bubble, one bubble per schedule.
//
// Off the scheduler the world skips what needs its one-task-at-a-time order (crashes and power
// losses, observer callbacks, same-instant races), so both sides play swarms without those
// faults; and both play them uniformly (PCT exists only on the scheduler). runtime is the
// runtime phase alone (the world played, schedules drawn beforehand, nothing checked); whole is
// the whole schedule (drawn, played, every property checked). events/op shows that both sides
// did the same work.
//
//	go test ./sim -run '^$' -bench SynctestPair -benchmem
func BenchmarkSynctestPair(b *testing.B) {
	schedules := fairSchedules(500)
	b.Run("runtime/scheduler", func(b *testing.B) {
		events, cpu := 0, processCPU()
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			w := playOnScheduler(schedules[i%len(schedules)])
			events += w.agent.Session().Len()
		}
		reportCPU(b, cpu)
		b.ReportMetric(float64(events)/float64(b.N), "events/op")
	})
	b.Run("runtime/synctest", func(b *testing.B) {
		events, cpu := 0, processCPU()
		b.ReportAllocs()
		inTest(b, func(t *testing.T) {
			for i := range b.N {
				synctest.Test(t, func(*testing.T) {
					w := newWorld(schedules[i%len(schedules)], harness.NewProductionRuntime(clock.New()), nil, Agent{})
					w.play()
					events += w.agent.Session().Len()
				})
			}
		})
		reportCPU(b, cpu)
		b.ReportMetric(float64(events)/float64(b.N), "events/op")
	})
	b.Run("whole/scheduler", func(b *testing.B) {
		cpu := processCPU()
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			requireClean(b, RunSchedule(fairSchedule(schedules[i%len(schedules)].Seed)))
		}
		reportCPU(b, cpu)
	})
	b.Run("whole/synctest", func(b *testing.B) {
		cpu := processCPU()
		b.ReportAllocs()
		inTest(b, func(t *testing.T) {
			for i := range b.N {
				synctest.Test(t, func(*testing.T) {
					o := PlaySchedule(fairSchedule(schedules[i%len(schedules)].Seed), harness.NewProductionRuntime(clock.New()))
					requireClean(b, o)
				})
			}
		})
		reportCPU(b, cpu)
	})
}

// fairFaults are the faults that play the same on both runtimes.
func fairFaults() []string {
	skipped := []string{faults.Crash, faults.TornWrite, faults.PowerLoss, faults.ObserverCallback, faults.SendCancelRace}
	return slices.DeleteFunc(faults.Names(), func(name string) bool { return slices.Contains(skipped, name) })
}

// fairSchedule is a seed's schedule over the fair faults, scheduled uniformly.
func fairSchedule(seed int64) Schedule {
	s := NewSchedule(seed, fairFaults())
	s.Strategy, s.Depth = StrategyUniform, 0
	return s
}

func fairSchedules(n int) []Schedule {
	schedules := make([]Schedule, n)
	for i := range schedules {
		schedules[i] = fairSchedule(int64(i + 1))
	}
	return schedules
}

// playOnScheduler is runWorld's runtime phase: the world played on a fresh scheduler, no checks.
func playOnScheduler(schedule Schedule) *world {
	scheduler := sched.New(sched.Options{
		Seed:           deriveSeed(schedule.Seed, streamScheduler),
		MaxVirtualTime: ms(schedule.Plan.HorizonMs + livenessBoundMs + virtualTimeMarginMs),
		MaxEvents:      eventLimit(schedule),
		MaxTasks:       taskLimit(schedule),
	})
	w := newWorld(schedule, scheduler, scheduler, Agent{})
	scheduler.Run("main", w.play)
	return w
}

// reportCPU reports the process's CPU time per op since cpu: the figure to compare on a shared
// machine (synctest's bubble runs on other goroutines, all counted).
func reportCPU(b *testing.B, cpu time.Duration) {
	b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
}

func requireClean(b *testing.B, o Outcome) {
	if len(o.Violations) > 0 {
		b.Fatalf("seed %d: %v", o.Schedule.Seed, o.Violations[0])
	}
}

// inTest runs f with a *testing.T, which synctest.Test needs and a benchmark does not have, in
// the benchmark's own process (testing.RunTests runs tests in-process, as go test does).
//
// RunTests obeys -count, so under go test -count 3 it would run f three times per benchmark
// call and the synctest side would do three times the work per op (its events/op tripled): f
// runs on the first call only.
func inTest(b *testing.B, f func(t *testing.T)) {
	b.ResetTimer()
	ran := false
	once := func(t *testing.T) {
		if !ran {
			ran = true
			f(t)
		}
	}
	ok := testing.RunTests(func(string, string) (bool, error) { return true, nil },
		[]testing.InternalTest{{Name: "BenchmarkSynctestPairBubbles", F: once}})
	b.StopTimer()
	if !ok {
		b.Fatal("the synctest side failed")
	}
}
