package sched

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// watchedRuns is the number of runs on the process's watch list.
func watchedRuns() int {
	watched.mu.Lock()
	defer watched.mu.Unlock()
	return len(watched.runs)
}

// armedPeriod is the period the shared timer is armed for, 0 when it is not.
func armedPeriod() time.Duration {
	watched.mu.Lock()
	defer watched.mu.Unlock()
	return watched.period
}

// The runs under way share one watch list: each is taken off it when it stops, in any order, and
// the others stay watched.
func TestWatchList(t *testing.T) {
	before := watchedRuns()
	var progress [3]atomic.Int64
	var dogs [3]watchdog
	hung := make(chan int64, 1)
	for i := range dogs {
		dogs[i].start(time.Hour, &progress[i], hung, 0, nil)
	}
	require.Equal(t, before+3, watchedRuns())
	dogs[1].stop()
	assert.Equal(t, before+2, watchedRuns())
	watched.mu.Lock()
	for i, w := range watched.runs {
		assert.Equal(t, i, w.at)
		assert.NotSame(t, &dogs[1], w)
	}
	watched.mu.Unlock()
	dogs[0].stop()
	dogs[2].stop()
	assert.Equal(t, before, watchedRuns())
	assert.Empty(t, hung)
}

// A run watched with a short limit is reported in time even while a run with a long one is under
// way: the shared timer polls at the shortest period of the runs it watches.
func TestWatchdogPollsForTheShortestLimit(t *testing.T) {
	noLeak(t)
	stuck := make(chan struct{})
	release := sync.OnceFunc(func() { close(stuck) })
	defer release() // lets the abandoned goroutines finish before the leak check
	long := make(chan *RunReport)
	go func() {
		long <- runOnce(Options{Seed: 1, Watchdog: time.Hour}, func(s *Scheduler) {
			<-stuck // hung, but an hour is a long time
		})
	}()
	// Until the timer polls for the long run alone: an earlier run of the package may have left it
	// armed for a shorter period, whose poll would then find the short run without start's help.
	for armedPeriod() != time.Hour/4 {
		time.Sleep(time.Millisecond)
	}
	done := make(chan *RunReport)
	go func() {
		done <- runOnce(Options{Seed: 1, Watchdog: 50 * time.Millisecond}, func(s *Scheduler) {
			<-stuck
		})
	}()
	select {
	case report := <-done:
		require.Len(t, report.Findings, 1)
		assert.Equal(t, FindingHang, report.Findings[0].Kind)
	case <-time.After(time.Minute):
		t.Fatal("the short hang was not reported within a minute")
	}
	select {
	case <-long:
		t.Error("the long run was reported as hung")
	default:
	}
	release()
	assert.Empty(t, (<-long).Findings)
}
