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

// watchdog is a run's entry in the process's watch list (watched): one wall-clock timer polls the
// progress counters of every run under way. One timer for the process, not one per run: a run
// lasts a fraction of a millisecond, far less than a poll period, so a run's own timer never fired,
// yet starting and stopping it cost two allocations, a timer-heap insertion and deletion, and, on
// a machine with an idle core, often a thread woken to service the new timer (with it, a small
// run at GOMAXPROCS=2 made about one and a half times the futex calls and context switches it made
// without). Before that, a goroutine on a ticker per run cost two goroutine switches per run. The
// entry is part of the Scheduler's own allocation.
type watchdog struct {
	limit    time.Duration
	progress *atomic.Int64
	// hung carries the progress count at which the run has been stuck for limit (it is the
	// scheduler's events). Run's goroutine takes the baton only if the count is still that (odd)
	// one, so a report that arrives after the task yielded is ignored.
	hung chan<- int64

	// wall bounds the whole run's wall time (0: no bound); began is when the run started, and
	// overWall is set once the run took longer (Options.MaxWall).
	wall     time.Duration
	began    time.Time
	overWall *atomic.Bool

	// What follows is guarded by watched.mu.
	at    int       // the entry's index in watched.runs while it is there
	seen  int64     // the progress count at the last poll
	since time.Time // when it was first seen
}

// watched is the process's watch list and its timer, armed while the list is not empty.
var watched struct {
	mu     sync.Mutex
	runs   []*watchdog
	timer  *time.Timer
	period time.Duration // the armed timer's period; 0 while it is not armed
}

// start starts watching progress: limit of wall time without a change produces a report on hung
// (and again after each further limit, so a hang while unwinding is also caught). It also bounds
// the run's whole wall time by wall (0: no bound), setting overWall once it is past.
func (w *watchdog) start(limit time.Duration, progress *atomic.Int64, hung chan<- int64, wall time.Duration, overWall *atomic.Bool) {
	w.limit = limit
	w.progress = progress
	w.hung = hung
	w.seen = progress.Load()
	w.since = time.Now()
	w.wall, w.began, w.overWall = wall, w.since, overWall
	watched.mu.Lock()
	defer watched.mu.Unlock()
	w.at = len(watched.runs)
	watched.runs = append(watched.runs, w)
	if p := w.period(); watched.period == 0 || p < watched.period {
		armWatch(p)
	}
}

// period polls four times per limit (the shorter of the hang limit and the wall bound), so a
// hang is reported between limit and 1.25*limit after the last handoff. Polling costs nothing per
// handoff, unlike a timer reset on each one.
func (w *watchdog) period() time.Duration {
	limit := w.limit
	if w.wall > 0 {
		limit = min(limit, w.wall)
	}
	return max(limit/4, time.Millisecond)
}

// armWatch sets the timer to poll after p; watched.mu is held.
func armWatch(p time.Duration) {
	watched.period = p
	if watched.timer == nil {
		watched.timer = time.AfterFunc(p, pollWatched)
	} else {
		watched.timer.Reset(p)
	}
}

// pollWatched runs on the timer's goroutine: it reports each run stalled for its limit and re-arms
// the timer for the shortest period of the runs still watched, if any.
func pollWatched() {
	watched.mu.Lock()
	defer watched.mu.Unlock()
	now := time.Now()
	period := time.Duration(0)
	for _, w := range watched.runs {
		if n := w.progress.Load(); n != w.seen {
			w.seen, w.since = n, now
		} else if now.Sub(w.since) >= w.limit {
			select {
			case w.hung <- n:
			default: // Run's goroutine has not taken the previous report yet
			}
			w.since = now
		}
		if w.wall > 0 && now.Sub(w.began) >= w.wall {
			w.overWall.Store(true)
		}
		if p := w.period(); period == 0 || p < period {
			period = p
		}
	}
	watched.period = 0
	if period > 0 {
		armWatch(period)
	}
}

// stop ends the watching: once it returns, no report is sent on hung. The timer stays armed for the
// other runs, or until its next poll finds none.
func (w *watchdog) stop() {
	watched.mu.Lock()
	defer watched.mu.Unlock()
	last := len(watched.runs) - 1
	moved := watched.runs[last]
	watched.runs[w.at] = moved
	moved.at = w.at
	watched.runs[last] = nil
	watched.runs = watched.runs[:last]
}
