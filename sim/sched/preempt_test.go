package sched

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkThenAct is the shape a preemption point guards: main checks a flag another task sets at
// the same virtual instant, passes a preemption point, and acts. It returns whether the other
// task ran inside that window (between the check and the act), and the run's report.
func checkThenAct(opts Options) (interleaved bool, report *RunReport) {
	s := New(opts)
	report = s.Run("main", func() {
		set := false
		s.Go("canceller", func() { set = true })
		seen := set // the check
		s.Preempt("act: before lock")
		interleaved = !seen && set // the act sees what the check did not
	})
	return interleaved, report
}

// A preemption point is a scheduling point: across seeds another runnable task sometimes runs
// there, and never does virtual time move.
func TestPreemptionPointInterleavesAnotherTask(t *testing.T) {
	noLeak(t)
	interleaved := 0
	for seed := int64(1); seed <= 200; seed++ {
		in, report := checkThenAct(Options{Seed: seed})
		require.Empty(t, report.Findings)
		assert.Zero(t, report.VirtualElapsed)
		if in {
			interleaved++
		}
	}
	assert.Positive(t, interleaved, "a uniform draw at the preemption point lets the other task in")
	assert.Less(t, interleaved, 200)
}

// PreemptRate 1 always gives way when another task is runnable: every seed whose spawn left the
// other task waiting interleaves it at the preemption point.
func TestPreemptRateGivesWay(t *testing.T) {
	noLeak(t)
	uniform, aimed := 0, 0
	for seed := int64(1); seed <= 200; seed++ {
		in, report := checkThenAct(Options{Seed: seed})
		if in {
			uniform++
		}
		assert.Zero(t, report.PreemptedByRate, "seed %d: no rate, no switch made by it", seed)
		in, report = checkThenAct(Options{Seed: seed, PreemptRate: 1})
		if in {
			aimed++
			assert.Equal(t, 1, report.Preempted)
			assert.Equal(t, 1, report.PreemptedByRate, "seed %d: the rate made the switch", seed)
		}
	}
	assert.Greater(t, aimed, uniform, "the aim makes the switch likelier than the uniform draw")
}

// PCT places change points on preemption points too: some seeds switch there.
func TestPCTChangePointsAtPreemptionPoints(t *testing.T) {
	noLeak(t)
	preempted := 0
	for seed := int64(1); seed <= 400; seed++ {
		s := New(Options{Seed: seed, PCTDepth: 3})
		report := s.Run("main", func() {
			s.Go("other", func() {})
			for range pctPreemptionsMax {
				s.Preempt("spin: before lock")
			}
		})
		require.Empty(t, report.Findings)
		preempted += report.Preempted
	}
	assert.Positive(t, preempted)
}

// A task that passes preemption points forever, never sleeping or waiting, is a livelock: it
// counts against the event budget and is stopped at a preemption point.
func TestPreemptionPointsCountAgainstTheEventBudget(t *testing.T) {
	noLeak(t)
	s := New(Options{Seed: 1, MaxEvents: 100})
	report := s.Run("main", func() {
		for {
			s.Preempt("refused append: before lock")
		}
	})
	require.Len(t, report.Findings, 1)
	assert.Equal(t, FindingEventLimit, report.Findings[0].Kind)
	assert.Contains(t, report.Findings[0].Message, "refused append: before lock")
}

// A finding recorded by Stop ends the run at the next preemption point, even in a task that
// never yields otherwise.
func TestStopEndsTheRunAtAPreemptionPoint(t *testing.T) {
	noLeak(t)
	s := New(Options{Seed: 1})
	passed := 0
	report := s.Run("main", func() {
		for {
			passed++
			if passed == 10 {
				s.Stop("event-limit", "too many appends")
			}
			s.Preempt("append: before lock")
		}
	})
	require.Len(t, report.Findings, 1)
	assert.Equal(t, "event-limit", report.Findings[0].Kind)
	assert.Equal(t, 10, passed)
}

// A parked task whose context a task cancelled before its preemption point becomes runnable
// there, and may run first: a cancel wakes its waiter at that instant.
func TestPreemptionPointWakesCancelledWaiters(t *testing.T) {
	noLeak(t)
	woke := 0
	for seed := int64(1); seed <= 50; seed++ {
		s := New(Options{Seed: seed, PreemptRate: 1})
		order := ""
		s.Run("main", func() {
			ctx, cancel := context.WithCancel(context.Background())
			s.Go("waiter", func() {
				if s.Sleep(time.Hour, ctx) != nil {
					order += "w"
				}
			})
			cancel()
			s.Preempt("after cancel")
			order += "m"
		})
		if order == "wm" {
			woke++
		}
	}
	assert.Positive(t, woke)
}

// A process's tasks reach the scheduler's preemption points: with PreemptRate 1, a task of the
// process gives way there whenever another is runnable (some seeds run it while one is).
func TestProcessPreempt(t *testing.T) {
	noLeak(t)
	preempted := 0
	for seed := int64(1); seed <= 50; seed++ {
		s := New(Options{Seed: seed, PreemptRate: 1})
		p := s.NewProcess("agent#1")
		report := s.Run("main", func() {
			p.Go("loop", func() { p.Preempt("loop: before lock") })
			p.Go("other", func() {})
		})
		require.Empty(t, report.Findings)
		preempted += report.PreemptedByRate
	}
	assert.Positive(t, preempted, "a process's preemption point gave way to another task")
}

func TestPreemptOutsideATaskPanics(t *testing.T) {
	assert.PanicsWithValue(t, "sched: Preempt called outside a task of this scheduler (before or after Run, or from a foreign goroutine)", func() {
		New(Options{}).Preempt("nowhere")
	})
}

// The caller's own events (the world's store appends) count against the same budget as the
// scheduling decisions and preemption points: past it, the run ends at its next scheduling point
// with the event-limit finding naming the last event.
func TestCountedEventsShareTheEventBudget(t *testing.T) {
	noLeak(t)
	s := New(Options{Seed: 1, MaxEvents: 101}) // the first pick, then 50 appends and 50 preemption points
	counted := 0
	report := s.Run("main", func() {
		for {
			s.CountEvent("a store append")
			counted++
			s.Preempt("after an append")
		}
	})
	require.Len(t, report.Findings, 1)
	assert.Equal(t, FindingEventLimit, report.Findings[0].Kind)
	assert.Contains(t, report.Findings[0].Message, "a store append")
	assert.Equal(t, 51, counted, "appends and preemption points share the budget")
	assert.Equal(t, 103, s.Spent(), "the append that crossed it, and the preemption point where the run ended")
}
