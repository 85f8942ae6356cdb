package sched

import (
	"iter"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func idleCount() int {
	idle.mu.Lock()
	defer idle.mu.Unlock()
	return len(idle.work)
}

// parkedWorker is a task coroutine parked idle, as one is after its task returned, and a channel
// closed when its goroutine has ended.
func parkedWorker(t *testing.T) (*worker, chan struct{}) {
	w := &worker{}
	ended := make(chan struct{})
	w.resume, w.stop = iter.Pull(func(park func(struct{}) bool) {
		defer close(ended)
		if park(struct{}{}) { // parked until taken (never, here) or stopped
			w.serve(park)
		}
	})
	w.resume()
	require.True(t, parkIdle(w))
	return w, ended
}

// waitEnded waits for the goroutine to end, bounded by a generous deadline rather than timed: on
// a loaded machine the sweep's timer may fire late.
func waitEnded(t *testing.T, ended chan struct{}) {
	t.Helper()
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Fatal("the idle goroutine is still alive after 30 s")
	}
}

// An idle task coroutine does not outlive the runs that could take it: with none to take it, the
// sweep ends it by itself.
func TestTheSweepEndsIdleGoroutines(t *testing.T) {
	ReleaseIdle()
	_, ended := parkedWorker(t)
	waitEnded(t, ended)
	assert.Zero(t, idleCount())
}

// ReleaseIdle ends them at once, for a leak check that cannot wait for the sweep.
func TestReleaseIdleEndsThemNow(t *testing.T) {
	_, ended := parkedWorker(t)
	ReleaseIdle()
	assert.Zero(t, idleCount())
	waitEnded(t, ended)
}

// holdSweep stops the sweep's timer and keeps parkIdle from arming it, until the returned
// function lets it be armed again: a test counting idle workers is not to see a review stop them.
// A review whose timer already fired but which waits for the lock (armed, yet Stop finds nothing
// to stop) is let run first: it would re-arm the timer or leave it unarmed, either way ending the
// hold; holdSweep then tries again.
func holdSweep() (release func()) {
	for {
		idle.mu.Lock()
		if idle.sweep == nil || !idle.armed || idle.sweep.Stop() {
			idle.armed = true
			idle.mu.Unlock()
			break
		}
		idle.mu.Unlock()
		time.Sleep(time.Millisecond)
	}
	return func() {
		idle.mu.Lock()
		defer idle.mu.Unlock()
		idle.armed = false
	}
}

// At most maxIdleGoroutines wait: one more is told to end instead. The sweep is held: on a loaded
// machine, under -race, parking them takes longer than a sweep period, and a review within the
// loop stopped the workers parked so far.
func TestIdleGoroutinesAreBounded(t *testing.T) {
	defer holdSweep()()
	ReleaseIdle()
	defer ReleaseIdle()
	for range maxIdleGoroutines {
		parkedWorker(t)
	}
	extra := newWorker()
	defer extra.stop()
	assert.False(t, parkIdle(extra))
	assert.Equal(t, maxIdleGoroutines, idleCount())
}
