package sched

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/turnsim/turnsim/harness"
)

// noLeak fails the test if a goroutine started during it is still alive at its end.
func noLeak(t *testing.T) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { ReleaseIdle(); goleak.VerifyNone(t, ignore) })
}

// runOnce runs main on a fresh scheduler and returns the report.
func runOnce(opts Options, main func(s *Scheduler)) *RunReport {
	s := New(opts)
	return s.Run("main", func() { main(s) })
}

// virtualNow is the virtual time elapsed since the scheduler's epoch.
func virtualNow(s *Scheduler) time.Duration { return s.Now().Sub(time.Unix(0, 0)) }

func TestSleepWakesAtExactVirtualTime(t *testing.T) {
	noLeak(t)
	woke := map[string]time.Duration{}
	var spinNow []time.Duration
	s := New(Options{Seed: 7})
	report := s.Run("main", func() {
		for _, c := range []struct {
			name string
			d    time.Duration
		}{{"short", 1500 * time.Millisecond}, {"long", 2 * time.Second}} {
			s.Go(c.name, func() {
				assert.NoError(t, s.Sleep(c.d))
				woke[c.name] = virtualNow(s)
			})
		}
		s.Go("spinner", func() {
			for range 100 {
				assert.NoError(t, s.Sleep(0)) // yields, but never lets time move
				spinNow = append(spinNow, virtualNow(s))
			}
		})
	})
	require.Empty(t, report.Findings)
	assert.Equal(t, map[string]time.Duration{"short": 1500 * time.Millisecond, "long": 2 * time.Second}, woke)
	assert.Equal(t, 2*time.Second, report.VirtualElapsed)
	assert.Equal(t, time.Unix(2, 0).UTC(), s.Now())
	require.Len(t, spinNow, 100)
	for _, now := range spinNow {
		assert.Zero(t, now, "virtual time moved while a task was runnable")
	}
	assert.Equal(t, report.Handoffs, s.Handoffs())
}

func TestStartSetsTheEpoch(t *testing.T) {
	start := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	s := New(Options{Start: start})
	var seen time.Time
	report := s.Run("main", func() {
		assert.NoError(t, s.Sleep(time.Minute))
		seen = s.Clock().Now()
	})
	require.Empty(t, report.Findings)
	assert.Equal(t, start.Add(time.Minute), seen)
	assert.Equal(t, time.Unix(0, 0).UTC(), New(Options{}).Now())
}

// sameInstantOrder returns the order in which five timers due at one instant fire under seed.
func sameInstantOrder(t *testing.T, seed int64) string {
	var order []string
	report := runOnce(Options{Seed: seed}, func(s *Scheduler) {
		for i := range 5 {
			name := fmt.Sprint("t", i)
			s.Go(name, func() {
				assert.NoError(t, s.Sleep(time.Second))
				order = append(order, name)
			})
		}
	})
	require.Empty(t, report.Findings)
	return strings.Join(order, ",")
}

func TestSameInstantTimersFireInSeededOrder(t *testing.T) {
	noLeak(t)
	distinct := map[string]bool{}
	for seed := int64(1); seed <= 50; seed++ {
		first := sameInstantOrder(t, seed)
		assert.Equal(t, first, sameInstantOrder(t, seed), "seed %d", seed)
		distinct[first] = true
	}
	assert.GreaterOrEqual(t, len(distinct), 2, "timers due together should fire in seed-dependent orders")
}

// interleavingTrace runs a workload that mixes every primitive and returns its event trace: which
// task did what at which virtual time.
func interleavingTrace(t *testing.T, seed int64) []string {
	var trace []string
	report := runOnce(Options{Seed: seed}, func(s *Scheduler) {
		note := func(format string, args ...any) {
			trace = append(trace, fmt.Sprintf("+%v ", virtualNow(s))+fmt.Sprintf(format, args...))
		}
		work := s.NewQueue("work")
		ctx, cancel := context.WithCancelCause(context.Background())
		for w := range 3 {
			s.Go(fmt.Sprint("consumer", w), func() {
				for {
					v, err := work.Get(ctx)
					if err != nil {
						note("consumer%d stops: %v", w, err)
						return
					}
					note("consumer%d got %v", w, v)
					assert.NoError(t, s.Sleep(time.Duration(w+1)*time.Millisecond))
				}
			})
		}
		for p := range 2 {
			s.Go(fmt.Sprint("producer", p), func() {
				for i := range 6 {
					work.Put(fmt.Sprintf("p%d.%d", p, i))
					note("producer%d put %d", p, i)
					if i%2 == 0 {
						assert.NoError(t, s.Sleep(0))
					} else {
						s.Go(fmt.Sprintf("helper%d.%d", p, i), func() { note("helper%d.%d ran", p, i) })
					}
				}
			})
		}
		assert.NoError(t, s.Sleep(time.Second))
		note("main cancels")
		cancel(errors.New("shift over"))
	})
	require.Empty(t, report.Findings)
	trace = append(trace, fmt.Sprintf("handoffs=%d elapsed=%v", report.Handoffs, report.VirtualElapsed))
	return trace
}

func TestInterleavingIsReproducible(t *testing.T) {
	noLeak(t)
	distinct := map[string]bool{}
	for seed := int64(1); seed <= 200; seed++ {
		first := interleavingTrace(t, seed)
		require.Equal(t, first, interleavingTrace(t, seed), "seed %d", seed)
		distinct[strings.Join(first, "\n")] = true
	}
	assert.Greater(t, len(distinct), 100, "seeds should explore different interleavings")
}

func TestInterleavingDoesNotDependOnGOMAXPROCS(t *testing.T) {
	noLeak(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	traces := map[int][][]string{}
	for _, procs := range []int{1, 4} {
		runtime.GOMAXPROCS(procs)
		for seed := int64(1); seed <= 200; seed++ {
			traces[procs] = append(traces[procs], interleavingTrace(t, seed))
		}
	}
	assert.Equal(t, traces[1], traces[4])
}

func TestCancellation(t *testing.T) {
	cause := errors.New("user pressed stop")
	sleep := func(s *Scheduler, _ harness.Queue, ctxs []context.Context) error {
		return s.Sleep(10*time.Second, ctxs...)
	}
	get := func(_ *Scheduler, q harness.Queue, ctxs []context.Context) error {
		_, err := q.Get(ctxs[0])
		return err
	}
	for _, tc := range []struct {
		name string
		// wait parks the waiter on its contexts, of which the one at index cancelled gets cancelled.
		wait      func(s *Scheduler, q harness.Queue, ctxs []context.Context) error
		contexts  int
		cancelled int
	}{
		{"sleep, one context", sleep, 1, 0},
		{"sleep, second of two contexts", sleep, 2, 1},
		{"sleep, first of two contexts", sleep, 2, 0},
		{"queue get", get, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			noLeak(t)
			var (
				err    error
				wokeAt time.Duration
			)
			report := runOnce(Options{Seed: 3}, func(s *Scheduler) {
				q := s.NewQueue("q")
				ctxs := make([]context.Context, tc.contexts)
				cancels := make([]context.CancelCauseFunc, tc.contexts)
				for i := range ctxs {
					ctxs[i], cancels[i] = context.WithCancelCause(context.Background())
				}
				s.Go("waiter", func() {
					err = tc.wait(s, q, ctxs)
					wokeAt = virtualNow(s)
				})
				s.Go("canceller", func() {
					assert.NoError(t, s.Sleep(1500*time.Millisecond))
					cancels[tc.cancelled](cause)
				})
				s.Go("bystander", func() { assert.NoError(t, s.Sleep(3*time.Second)) })
			})
			require.Empty(t, report.Findings)
			assert.ErrorIs(t, err, cause)
			assert.Equal(t, 1500*time.Millisecond, wokeAt, "woken at the instant of cancellation")
			assert.Equal(t, 3*time.Second, report.VirtualElapsed)
		})
	}
}

func TestAlreadyDoneAndAvailableReturnWithoutYielding(t *testing.T) {
	noLeak(t)
	cause := errors.New("done already")
	report := runOnce(Options{}, func(s *Scheduler) {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(cause)
		q := s.NewQueue("q")
		before := s.Handoffs()

		assert.ErrorIs(t, s.Sleep(time.Hour, context.Background(), nil, ctx), cause)
		assert.ErrorIs(t, s.Sleep(0, ctx), cause, "a done context wins over a zero delay")
		_, err := q.Get(ctx)
		assert.ErrorIs(t, err, cause)
		q.Put("a") // never yields
		q.Put("b")
		v, err := q.Get(ctx)
		assert.NoError(t, err, "an available item is returned even when the context is done")
		assert.Equal(t, "a", v)
		v, err = q.Get(nil) // a nil context is never done
		assert.NoError(t, err)
		assert.Equal(t, "b", v)
		assert.Equal(t, before, s.Handoffs(), "none of these may yield")

		assert.NoError(t, s.Sleep(0))
		assert.Equal(t, before+1, s.Handoffs(), "a zero sleep yields exactly once")
	})
	require.Empty(t, report.Findings)
}

func TestQueueHandsOffToWaitersInArrivalOrder(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		var parked []string
		got := map[string]any{}
		report := runOnce(Options{Seed: seed}, func(s *Scheduler) {
			q := s.NewQueue("jobs")
			for i := range 4 {
				name := fmt.Sprint("waiter", i)
				s.Go(name, func() {
					parked = append(parked, name) // no yield between this and parking in Get
					v, err := q.Get(context.Background())
					assert.NoError(t, err)
					got[name] = v
				})
			}
			assert.NoError(t, s.Sleep(time.Second)) // every waiter is parked by now
			for i := range 4 {
				q.Put(i)
			}
		})
		require.Empty(t, report.Findings)
		require.Len(t, parked, 4)
		for i, name := range parked {
			assert.Equal(t, i, got[name], "seed %d: the waiter parked %d-th gets the %d-th item", seed, i, i)
		}
	}
}

func TestQueueItemsAreFIFO(t *testing.T) {
	var got []any
	report := runOnce(Options{}, func(s *Scheduler) {
		q := s.NewQueue("fifo")
		for i := range 200 { // more than the compaction threshold
			q.Put(i)
			if i%3 == 0 {
				v, err := q.Get(context.Background())
				assert.NoError(t, err)
				got = append(got, v)
			}
		}
		for range 200 - len(got) {
			v, err := q.Get(context.Background())
			assert.NoError(t, err)
			got = append(got, v)
		}
	})
	require.Empty(t, report.Findings)
	for i, v := range got {
		require.Equal(t, i, v)
	}
}

func TestDeadlockNamesEveryBlockedTask(t *testing.T) {
	noLeak(t)
	unwound := map[string]bool{}
	report := runOnce(Options{Seed: 1}, func(s *Scheduler) {
		tools := s.NewQueue("tools")
		idle := s.NewQueue("idle")
		s.Go("executor", func() {
			defer func() { unwound["executor"] = true }()
			_, _ = tools.Get(context.Background())
			t.Error("executor woke from a deadlock")
		})
		s.Go("watcher", func() {
			defer func() { unwound["watcher"] = true }()
			_, _ = idle.Get(context.Background())
			t.Error("watcher woke from a deadlock")
		})
		assert.NoError(t, s.Sleep(1500*time.Millisecond))
		defer func() { unwound["main"] = true }()
		_, _ = idle.Get(context.Background())
	})
	require.Len(t, report.Findings, 1)
	f := report.Findings[0]
	assert.Equal(t, FindingDeadlock, f.Kind)
	assert.Equal(t, []TaskSite{
		{Name: "main", Site: "blocked on queue idle.Get"},
		{Name: "executor", Site: "blocked on queue tools.Get"},
		{Name: "watcher", Site: "blocked on queue idle.Get"},
	}, f.Tasks)
	assert.Equal(t, 1500*time.Millisecond, report.VirtualElapsed)
	assert.Equal(t, map[string]bool{"main": true, "executor": true, "watcher": true}, unwound)
	assert.Contains(t, f.String(), `task "executor": blocked on queue tools.Get`)
}

func TestPanicIsAFindingAndUnwindsTheOthers(t *testing.T) {
	noLeak(t)
	var deferRan, neverStarted bool
	report := runOnce(Options{Seed: 1}, func(s *Scheduler) {
		s.Go("sleeper", func() {
			defer func() { deferRan = true }()
			_ = s.Sleep(time.Hour)
			t.Error("sleeper resumed after the panic")
		})
		assert.NoError(t, s.Sleep(time.Second))
		s.Go("late", func() { neverStarted = true }) // may or may not run before the panic
		panicInTool()
	})
	require.Len(t, report.Findings, 1)
	f := report.Findings[0]
	assert.Equal(t, FindingPanic, f.Kind)
	assert.Contains(t, f.Message, `task "main" panicked: tool exploded`)
	assert.Contains(t, f.Stack, "panicInTool", "the stack shows where the panic happened")
	assert.Contains(t, f.Tasks, TaskSite{Name: "sleeper", Site: "sleeping until +1h0m0s"})
	assert.True(t, deferRan, "the sleeper's defers ran while it was unwound")
	_ = neverStarted
}

func panicInTool() { panic("tool exploded") }

// TestKilledTaskDefersMayCallPrimitives covers the unwinding path in depth: a primitive called
// from a defer while the task is being killed exits at once (a Goexit nested in a Goexit), later
// defers still run, Go starts nothing and Put is dropped.
func TestKilledTaskDefersMayCallPrimitives(t *testing.T) {
	noLeak(t)
	var log []string
	report := runOnce(Options{Seed: 1}, func(s *Scheduler) {
		q := s.NewQueue("q")
		s.Go("victim", func() {
			defer func() { log = append(log, "outer defer ran") }()
			defer func() {
				log = append(log, "sleep in defer")
				_ = s.Sleep(time.Second)
				log = append(log, "after sleep in defer: unreachable")
			}()
			defer func() {
				s.Go("spawned while killing", func() { log = append(log, "spawned task ran: wrong") })
				q.Put("dropped")
				log = append(log, "go and put returned")
			}()
			_, _ = q.Get(context.Background())
		})
		assert.NoError(t, s.Sleep(time.Second))
		panic("end the run")
	})
	require.Len(t, report.Findings, 1)
	assert.Equal(t, FindingPanic, report.Findings[0].Kind)
	assert.Equal(t, []string{"go and put returned", "sleep in defer", "outer defer ran"}, log)
}

func TestHangIsReportedByTheWatchdog(t *testing.T) {
	noLeak(t)
	stuck := make(chan struct{})
	defer close(stuck) // lets the abandoned goroutine finish before the leak check
	var otherUnwound bool
	start := time.Now()
	report := runOnce(Options{Seed: 1, Watchdog: 200 * time.Millisecond}, func(s *Scheduler) {
		s.Go("bystander", func() {
			defer func() { otherUnwound = true }()
			_ = s.Sleep(time.Hour)
		})
		assert.NoError(t, s.Sleep(time.Second))
		// Blocked outside the runtime until the test ends; then the Sleep below exits at once.
		<-stuck
		_ = s.Sleep(time.Second)
		t.Error("the abandoned task continued past a primitive")
	})
	assert.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond)
	require.Len(t, report.Findings, 1)
	f := report.Findings[0]
	assert.Equal(t, FindingHang, f.Kind)
	assert.Contains(t, f.Message, `task "main"`)
	assert.Contains(t, f.Stack, "TestHangIsReportedByTheWatchdog", "all goroutine stacks, including the stuck one")
	assert.Equal(t, []TaskSite{
		{Name: "main", Site: "running without yielding (blocked outside the runtime, or spinning)"},
		{Name: "bystander", Site: "sleeping until +1h0m0s"},
	}, f.Tasks)
	assert.True(t, otherUnwound)
}

func TestLimits(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    Options
		main    func(s *Scheduler)
		kind    string
		elapsed time.Duration
		site    string
	}{
		{
			name: "virtual time limit",
			opts: Options{MaxVirtualTime: time.Minute},
			main: func(s *Scheduler) {
				for { // a retry loop that never gives up
					_ = s.Sleep(25 * time.Second)
				}
			},
			kind:    FindingVirtualTimeLimit,
			elapsed: 50 * time.Second,
			site:    "sleeping until +1m15s",
		},
		{
			name: "a timer due exactly at the limit is allowed",
			opts: Options{MaxVirtualTime: time.Minute},
			main: func(s *Scheduler) {
				_ = s.Sleep(time.Minute)
			},
			elapsed: time.Minute,
		},
		{
			name: "event limit",
			opts: Options{MaxEvents: 100},
			main: func(s *Scheduler) {
				for { // a livelock that never moves time
					_ = s.Sleep(0)
				}
			},
			kind: FindingEventLimit,
			site: "runnable",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			noLeak(t)
			report := runOnce(tc.opts, tc.main)
			assert.Equal(t, tc.elapsed, report.VirtualElapsed)
			if tc.kind == "" {
				assert.Empty(t, report.Findings)
				return
			}
			require.Len(t, report.Findings, 1)
			assert.Equal(t, tc.kind, report.Findings[0].Kind)
			assert.Equal(t, []TaskSite{{Name: "main", Site: tc.site}}, report.Findings[0].Tasks)
			if tc.kind == FindingEventLimit {
				assert.Equal(t, tc.opts.MaxEvents, report.Handoffs)
			}
		})
	}
}

// A livelock that spawns tasks which never finish (parked on a queue no one fills) ends at the task
// limit, long before the event limit, whether the picker is uniform or PCT; everything unwinds.
func TestTaskLimit(t *testing.T) {
	for _, depth := range []int{0, 3} {
		noLeak(t)
		report := runOnce(Options{Seed: 7, PCTDepth: depth, MaxTasks: 50}, func(s *Scheduler) {
			q := s.NewQueue("never")
			for {
				s.Go("child", func() { _, _ = q.Get(context.Background()) })
			}
		})
		require.Len(t, report.Findings, 1, "depth %d", depth)
		f := report.Findings[0]
		assert.Equal(t, FindingTaskLimit, f.Kind)
		assert.Len(t, f.Tasks, 51)
		assert.Less(t, report.Handoffs, 200)
		assert.Contains(t, f.String(), "… and 31 more tasks", "a runaway run's report stays short")
	}
}

func TestManyRunsLeakNothing(t *testing.T) {
	noLeak(t)
	runs := 10_000
	if testing.Short() {
		runs = 1_000
	}
	for seed := range runs {
		report := runOnce(Options{Seed: int64(seed)}, func(s *Scheduler) {
			q := s.NewQueue("q")
			for i := range 3 {
				s.Go("worker", func() {
					_ = s.Sleep(time.Duration(i) * time.Millisecond)
					q.Put(i)
				})
			}
			s.Go("sleeper", func() { _ = s.Sleep(time.Hour) })
			for range 3 {
				_, _ = q.Get(context.Background())
			}
			if seed%2 == 0 {
				_, _ = q.Get(context.Background()) // a deadlock half of the time, to exercise unwinding
			}
		})
		if seed%2 == 0 {
			require.Len(t, report.Findings, 1, "seed %d", seed)
			require.Equal(t, FindingDeadlock, report.Findings[0].Kind)
		} else {
			require.Empty(t, report.Findings, "seed %d", seed)
		}
	}
}

func TestMisuseOutsideATaskPanics(t *testing.T) {
	s := New(Options{})
	assert.PanicsWithValue(t, "sched: Sleep called outside a task of this scheduler (before or after Run, or from a foreign goroutine)",
		func() { _ = s.Sleep(time.Second) })
	assert.Panics(t, func() { s.Go("x", func() {}) })
	assert.Panics(t, func() { _, _ = s.NewQueue("q").Get(context.Background()) })
	s.Run("main", func() {})
	assert.Panics(t, func() { _ = s.Sleep(time.Second) }, "after Run")
	assert.PanicsWithValue(t, "sched: Run called twice on one Scheduler; Reset it or make a new one",
		func() { s.Run("again", func() {}) })
}

// With PCT of depth 1 (no change points) the highest-priority runnable task always runs: two
// tasks that keep yielding never interleave, whichever the seed.
func TestPCTDepthOneRunsOneTaskToTheEnd(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		s := New(Options{Seed: seed, PCTDepth: 1})
		var trace []string
		s.Run("main", func() {
			for _, name := range []string{"a", "b"} {
				s.Go(name, func() {
					for range 3 {
						trace = append(trace, name)
						s.Sleep(0)
					}
				})
			}
		})
		require.Len(t, trace, 6)
		assert.Equal(t, trace[0], trace[1], "seed %d: %v", seed, trace)
		assert.Equal(t, trace[1], trace[2], "seed %d: %v", seed, trace)
	}
}
