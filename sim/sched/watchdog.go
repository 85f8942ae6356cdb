package sched

// The hang watchdog: the scheduler's one use of the wall clock. A task that blocks outside the
// runtime (a raw channel, a mutex, real I/O) or spins never hands the baton back, and Run would
// wait forever. The watchdog notices that no handoff has happened for too long and tells Run's
// goroutine, which then reports a hang. It decides nothing else: the order of events never
// depends on it, so it cannot make two runs of one seed differ unless one of them hangs anyway.

import (
	"sync"
	"sync/atomic"
	"time"
)

// watchdog is a wall-clock timer per Run polling the run's progress counter. It is a timer, not a
// goroutine on a ticker: a run lasts a fraction of a millisecond, far less than a poll period, so
// its timer never fires, and starting and stopping a goroutine cost two goroutine switches per
// run (startWatchdog and stop were 4% of a fair schedule's allocations, with a ticker and three
// channels each). It is part of the Scheduler's own allocation.
type watchdog struct {
	limit    time.Duration
	progress *atomic.Int64
	// hung carries the progress count at which the run has been stuck for limit (it is the
	// scheduler's events). Run's goroutine takes the baton only if the count is still that (odd)
	// one, so a report that arrives after the task yielded is ignored.
	hung chan<- int64

	mu      sync.Mutex // guards what follows, between a firing timer and stop
	timer   *time.Timer
	stopped bool
	seen    int64     // the progress count at the last poll
	since   time.Time // when it was first seen
}

// start starts watching progress: limit of wall time without a change produces a report on hung
// (and again after each further limit, so a hang while unwinding is also caught).
func (w *watchdog) start(limit time.Duration, progress *atomic.Int64, hung chan<- int64) {
	w.mu.Lock() // a timer firing at once (a tiny limit) waits until w.timer is set
	defer w.mu.Unlock()
	w.limit = limit
	w.progress = progress
	w.hung = hung
	w.seen = progress.Load()
	w.since = time.Now()
	w.timer = time.AfterFunc(w.period(), w.poll)
}

// period polls four times per limit, so a hang is reported between limit and 1.25*limit after
// the last handoff. Polling costs nothing per handoff, unlike a timer reset on each one.
func (w *watchdog) period() time.Duration { return max(w.limit/4, time.Millisecond) }

// poll runs on the timer's goroutine: it reports a stall of limit and re-arms the timer.
func (w *watchdog) poll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	now := time.Now()
	if n := w.progress.Load(); n != w.seen {
		w.seen, w.since = n, now
	} else if now.Sub(w.since) >= w.limit {
		select {
		case w.hung <- n:
		default: // Run's goroutine has not taken the previous report yet
		}
		w.since = now
	}
	w.timer.Reset(w.period())
}

// stop ends the watching: the timer is stopped, and a poll already under way does nothing.
func (w *watchdog) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	w.timer.Stop()
}
