package sched

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The paths on which a task's coroutine ends by runtime.Goexit, which iter.Pull would pass on to
// the driver that resumed it: the coroutine parks mid-exit instead, and the driver ends it later
// (zombies.go); a hang abandons a driver, and a new one takes the run on from there.

// A killed process's tasks exit (their defers run) while the rest of the run goes on.
func TestKilledProcessTasksExitAndTheRunGoesOn(t *testing.T) {
	noLeak(t)
	var log []string
	report := runOnce(Options{Seed: 3}, func(s *Scheduler) {
		p := s.NewProcess("agent")
		q := p.NewQueue("inbox")
		for _, name := range []string{"a", "b"} {
			p.Go(name, func() {
				defer func() { log = append(log, name+" exited") }()
				_, _ = q.Get(context.Background())
				log = append(log, name+" got an item: wrong")
			})
		}
		assert.NoError(t, s.Sleep(time.Second))
		p.Kill()
		assert.NoError(t, s.Sleep(time.Second), "the killer goes on")
		s.Go("after", func() { log = append(log, "after ran") })
		assert.NoError(t, s.Sleep(time.Second))
		log = append(log, "main done")
	})
	require.Empty(t, report.Findings)
	assert.ElementsMatch(t, []string{"a exited", "b exited", "after ran", "main done"}, log)
	assert.Equal(t, "main done", log[len(log)-1])
	assert.Equal(t, 3*time.Second, report.VirtualElapsed)
}

// A task may end itself with runtime.Goexit (a store dying mid-write does): that is a return.
func TestATaskMayGoexit(t *testing.T) {
	noLeak(t)
	var order []string
	report := runOnce(Options{Seed: 1}, func(s *Scheduler) {
		for range 3 {
			s.Go("quitter", func() {
				defer func() { order = append(order, "quitter") }()
				_ = s.Sleep(time.Millisecond)
				runtime.Goexit()
			})
		}
		assert.NoError(t, s.Sleep(time.Second))
		order = append(order, "main")
	})
	require.Empty(t, report.Findings)
	assert.Equal(t, []string{"quitter", "quitter", "quitter", "main"}, order)
}

// Unwinding is false while the run goes on, a task's own Goexit included, and true in the
// deferred functions of a task the end of the run kills.
func TestUnwinding(t *testing.T) {
	noLeak(t)
	var during, quitter, killed []bool
	report := runOnce(Options{Seed: 1}, func(s *Scheduler) {
		s.Go("quitter", func() {
			defer func() { quitter = append(quitter, s.Unwinding()) }()
			runtime.Goexit()
		})
		s.Go("sleeper", func() {
			defer func() { killed = append(killed, s.Unwinding()) }()
			_ = s.Sleep(time.Hour)
		})
		assert.NoError(t, s.Sleep(time.Second))
		during = append(during, s.Unwinding())
		s.Stop("test", "end the run")
		_ = s.Sleep(time.Second)
	})
	require.Len(t, report.Findings, 1)
	assert.Equal(t, []bool{false}, during)
	assert.Equal(t, []bool{false}, quitter, "a task's own Goexit is a return, not the run's end")
	assert.Equal(t, []bool{true}, killed)
}

// A deferred function that blocks outside the runtime while its task is unwound is a hang; the
// tasks after it are still unwound, by a new driver.
func TestHangWhileUnwinding(t *testing.T) {
	noLeak(t)
	stuck := make(chan struct{})
	defer close(stuck) // lets the abandoned goroutines finish before the leak check
	var lastUnwound bool
	report := runOnce(Options{Seed: 1, Watchdog: 100 * time.Millisecond}, func(s *Scheduler) {
		s.Go("stubborn", func() {
			defer func() { <-stuck }()
			_ = s.Sleep(time.Hour)
		})
		s.Go("last", func() {
			defer func() { lastUnwound = true }()
			_ = s.Sleep(time.Hour)
		})
		assert.NoError(t, s.Sleep(time.Second))
		panic("end the run")
	})
	require.Len(t, report.Findings, 2)
	assert.Equal(t, FindingPanic, report.Findings[0].Kind)
	f := report.Findings[1]
	assert.Equal(t, FindingHang, f.Kind)
	assert.Contains(t, f.Message, `task "stubborn" ran for over 100ms of wall time while being unwound`)
	assert.True(t, lastUnwound)
}

// Run may be called from a goroutine locked to its thread: the coroutines are created by the
// driver, which never is (the runtime throws when a coroutine created on a locked thread is
// switched to from another).
func TestRunFromALockedGoroutine(t *testing.T) {
	noLeak(t)
	done := make(chan *RunReport)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		done <- runOnce(Options{Seed: 1}, func(s *Scheduler) {
			s.Go("child", func() { _ = s.Sleep(time.Second) })
			_ = s.Sleep(2 * time.Second)
		})
	}()
	report := <-done
	assert.Empty(t, report.Findings)
	assert.Equal(t, 2*time.Second, report.VirtualElapsed)
}

// A run may end many tasks by Goexit, killed or by their own hand: each is a return to the rest
// of the run, and the deferred functions of every one run, in order.
func TestManyGoexitsInOneRun(t *testing.T) {
	noLeak(t)
	var exited []int
	report := runOnce(Options{Seed: 5}, func(s *Scheduler) {
		for round := range 10 {
			p := s.NewProcess("agent")
			q := p.NewQueue("inbox")
			for i := range 3 {
				p.Go("waiter", func() {
					defer func() { exited = append(exited, 10*round+i) }()
					_, _ = q.Get(context.Background())
				})
			}
			s.Go("quitter", func() {
				defer func() { exited = append(exited, -1) }()
				runtime.Goexit()
			})
			assert.NoError(t, s.Sleep(time.Second))
			p.Kill()
			assert.NoError(t, s.Sleep(time.Second))
		}
	})
	require.Empty(t, report.Findings)
	assert.Len(t, exited, 40)
	assert.Equal(t, 20*time.Second, report.VirtualElapsed)
}
