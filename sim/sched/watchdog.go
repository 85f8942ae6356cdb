package sched

// The hang watchdog: the scheduler's one use of the wall clock. A task that blocks outside the
// runtime (a raw channel, a mutex, real I/O) or spins never hands the baton back, and the loop
// would wait forever. The watchdog notices that no handoff has happened for too long and tells
// the loop, which then reports a hang. It decides nothing else: the order of events never depends
// on it, so it cannot make two runs of one seed differ unless one of them hangs anyway.

import (
	"sync/atomic"
	"time"
)

// watchdog is one goroutine per Run, polling the loop's progress counter on a ticker.
type watchdog struct {
	limit    time.Duration
	progress *atomic.Int64
	// hung carries the progress count at which the run has been stuck for limit. Run's
	// goroutine takes the baton only if the count is still that (odd) one, so a report that
	// arrives after the task yielded is ignored.
	hung    chan int64
	stopped chan struct{} // closed by stop to end the goroutine
	exited  chan struct{} // closed by the goroutine as it returns
}

// startWatchdog starts watching progress: limit of wall time without a change produces a report
// on hung (and again after each further limit, so a hang while unwinding is also caught).
func startWatchdog(limit time.Duration, progress *atomic.Int64) *watchdog {
	w := &watchdog{
		limit:    limit,
		progress: progress,
		hung:     make(chan int64, 1),
		stopped:  make(chan struct{}),
		exited:   make(chan struct{}),
	}
	go w.watch()
	return w
}

// watch polls four times per limit, so a hang is reported between limit and 1.25*limit after the
// last handoff. Polling costs nothing per handoff, unlike a timer reset on each one.
func (w *watchdog) watch() {
	defer close(w.exited)
	ticker := time.NewTicker(max(w.limit/4, time.Millisecond))
	defer ticker.Stop()
	seen := w.progress.Load()
	since := time.Now()
	for {
		select {
		case <-w.stopped:
			return
		case now := <-ticker.C:
			n := w.progress.Load()
			if n != seen {
				seen, since = n, now
				continue
			}
			if now.Sub(since) >= w.limit {
				select {
				case w.hung <- n:
				default: // the loop has not taken the previous report yet
				}
				since = now
			}
		}
	}
}

// stop ends the watchdog goroutine and waits for it, so a finished Run leaves no goroutine.
func (w *watchdog) stop() {
	close(w.stopped)
	<-w.exited
}
