package sched

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
)

// reuseWorkload exercises everything a reused Scheduler keeps: queues left with items (the
// producers outlive the consumers) and waiters, processes (one killed mid-wait, so its tasks
// become zombies, and one not) with more tasks than a process's inline buffer holds, more tasks
// than tasksFirst holds, more zombies than a batch on some seeds, and a deadlock on others. It
// returns the run's story: what each task saw, and the report.
func reuseWorkload(s *Scheduler, seed int64) []string {
	var trace []string
	note := func(format string, args ...any) {
		trace = append(trace, fmt.Sprintf("+%v ", virtualNow(s))+fmt.Sprintf(format, args...))
	}
	report := s.Run("main", func() {
		var work, idle harness.Queue
		if seed%2 == 0 { // so that each queue gets the other's spare on some runs
			work, idle = s.NewQueue("work"), s.NewQueue("idle")
		} else {
			idle, work = s.NewQueue("idle"), s.NewQueue("work")
		}
		var agent, host *Process
		if seed%3 == 0 { // so that each process gets the other's spare on some runs
			agent, host = s.NewProcess("agent"), s.NewProcess("host")
		} else {
			host, agent = s.NewProcess("host"), s.NewProcess("agent")
		}
		for h := range 2 { // tasks of a process that is never killed
			host.Go(fmt.Sprint("host", h), func() { _ = s.Sleep(time.Duration(h) * time.Millisecond) })
		}
		for w := range 5 {
			agent.Go(fmt.Sprint("consumer", w), func() {
				for {
					v, err := work.Get(context.Background())
					note("consumer%d got %v %v", w, v, err)
					_ = s.Sleep(time.Duration(w+1) * time.Millisecond)
				}
			})
		}
		for p := range 6 {
			s.Go(fmt.Sprint("producer", p), func() {
				for i := range 4 {
					work.Put(fmt.Sprintf("p%d.%d", p, i))
					_ = s.Sleep(time.Duration(i) * time.Millisecond)
				}
			})
		}
		quitters := int(seed%3) * zombieBatch / 2 // up to a batch and a half of Goexits
		for i := range quitters {
			s.Go("quitter", func() { note("quitter %d", i); runtime.Goexit() })
		}
		idle.Put("left over") // an item the run never takes
		_ = s.Sleep(20 * time.Millisecond)
		agent.Kill()
		note("agent killed")
		_ = s.Sleep(time.Millisecond)
		if seed%2 == 0 {
			s.Go("waiter", func() { _, _ = work.Get(context.Background()) })
			_, _ = work.Get(context.Background()) // a deadlock: two waiters left on the queue
		}
	})
	for _, f := range report.Findings {
		trace = append(trace, f.String())
	}
	return append(trace, fmt.Sprintf("handoffs=%d elapsed=%v", report.Handoffs, report.VirtualElapsed))
}

// A Scheduler reset between runs gives each run exactly what a new one does, whatever ran on it
// before: seeds go in an order that gives each a different predecessor, uniform and PCT alike.
func TestAResetSchedulerRunsAsANewOne(t *testing.T) {
	noLeak(t)
	reused := New(Options{})
	for i := range 60 {
		seed := int64(1 + (i*7)%60)
		opts := Options{Seed: seed, PCTDepth: int(seed % 4)}
		want := reuseWorkload(New(opts), seed)
		reused.Reset(opts)
		require.Equal(t, want, reuseWorkload(reused, seed), "seed %d", seed)
	}
}

// The RunReport a run returned is its own: the next run of a reset Scheduler changes nothing in
// it.
func TestResetLeavesTheReportAlone(t *testing.T) {
	s := New(Options{Seed: 2})
	first := s.Run("main", func() { _, _ = s.NewQueue("q").Get(nil) })
	require.Len(t, first.Findings, 1)
	want := fmt.Sprint(*first)
	s.Reset(Options{Seed: 3})
	second := s.Run("main", func() { s.Stop("test", "another finding"); _ = s.Sleep(time.Second) })
	require.Len(t, second.Findings, 1)
	assert.Equal(t, want, fmt.Sprint(*first))
}

// A stale hang report, sent after the run was over, is dropped: its progress count could match
// one of the next run's and abandon a task that is not hung.
func TestResetDropsStaleReports(t *testing.T) {
	s := New(Options{})
	s.Run("main", func() {})
	s.events <- 1
	s.Reset(Options{})
	assert.Zero(t, len(s.events))
	assert.Empty(t, s.Run("main", func() { _ = s.Sleep(time.Second) }).Findings)
}

// A Scheduler whose Run has not returned is not reset.
func TestResetRefusesARunningScheduler(t *testing.T) {
	s := New(Options{})
	s.Run("main", func() {
		assert.PanicsWithValue(t, "sched: Reset called while a Run is under way", func() { s.Reset(Options{}) })
	})
}

// A Scheduler whose run abandoned a hung task is never reused: the task may still run on it.
func TestResetRefusesAHungScheduler(t *testing.T) {
	noLeak(t)
	stuck := make(chan struct{})
	defer close(stuck)
	s := New(Options{Watchdog: 50 * time.Millisecond})
	report := s.Run("main", func() { <-stuck })
	require.Equal(t, FindingHang, report.Findings[0].Kind)
	assert.PanicsWithValue(t, "sched: Reset called on a Scheduler whose run abandoned a hung task; make a new one",
		func() { s.Reset(Options{}) })
}
