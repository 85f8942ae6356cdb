package sched

import (
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

// parkedWorker is a task goroutine parked idle, as one is after its task returned, and a channel
// closed when the goroutine has ended.
func parkedWorker(t *testing.T) (*worker, chan struct{}) {
	w := &worker{wake: make(chan struct{}, 1)}
	ended := make(chan struct{})
	go func() {
		serveTasks(w)
		close(ended)
	}()
	require.True(t, parkIdle(w))
	return w, ended
}

// waitEnded waits for the goroutine to end, bounded by a generous deadline rather than timed: on
// a loaded machine the sweep's timer may fire late.
func waitEnded(t *testing.T, ended chan struct{}) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		select {
		case <-ended:
			return
		default:
			time.Sleep(time.Millisecond)
		}
	}
	t.Fatal("the idle goroutine is still alive after 30 s")
}

// An idle task goroutine does not outlive the runs that could take it: with none to take it, the
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

// At most maxIdleGoroutines wait: one more is told to end instead.
func TestIdleGoroutinesAreBounded(t *testing.T) {
	ReleaseIdle()
	defer ReleaseIdle()
	for range maxIdleGoroutines {
		parkedWorker(t)
	}
	assert.False(t, parkIdle(&worker{wake: make(chan struct{}, 1)}))
	assert.Equal(t, maxIdleGoroutines, idleCount())
}
