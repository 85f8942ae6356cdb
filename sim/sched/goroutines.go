package sched

// Task goroutines are reused, within a run and across runs. A fresh goroutine starts on a small
// stack and grows it by copying as the harness's calls deepen: in the profile of a schedule's
// runtime phase that growth (runtime.newstack, copystack) took about a fifth of the time, and
// growing it in one step (growStack) and starting the goroutine still cost about 5%. So a
// goroutine whose task returned parks as idle, keeping its grown stack, and the next spawn, of
// this run or of a later one in the process, hands it a task instead of starting a goroutine.
// Which goroutine runs a task changes nothing a run can observe: a task still waits for its first
// resume, and the baton holder alone decides the order.
//
// Only a task that returns frees its goroutine: one killed (runtime.Goexit) ends with it, and one
// abandoned by the watchdog is never seen again. Idle goroutines are few (at most
// maxIdleGoroutines) and short-lived: one not taken for a sweep period (idleSweep) exits, so a
// process that stops running schedules is left with none shortly after its last Run returns.

import (
	"sync"
	"time"
)

const (
	// maxIdleGoroutines bounds the idle goroutines of the process; a goroutine finding that many
	// already idle exits. A schedule runs a handful of tasks at a time, a sweep one per worker.
	maxIdleGoroutines = 64
	// idleSweep is how often idle goroutines are reviewed: when none was taken since the last
	// review, they all exit. Short enough for a leak check's retries (goleak's take about 400 ms).
	idleSweep = 20 * time.Millisecond
)

// idle holds the goroutines waiting for a task, shared by every Scheduler of the process.
var idle struct {
	mu    sync.Mutex
	work  []*worker
	taken bool        // a goroutine was taken since the last review
	sweep *time.Timer // reviews the idle goroutines, armed while there are any
	armed bool
}

// worker is a task goroutine. Its wake channel is the resume channel of the task it runs, so
// handing it a task takes no channel operation: the task's first resume wakes the goroutine,
// which then finds the task in start. (Sending the task to an idle goroutine, which then waited
// for the first resume, cost a goroutine wakeup per spawn and a channel per task.)
type worker struct {
	wake  chan struct{}
	start taskStart // set by startGoroutine before the task's first resume
}

// taskStart is a task, its function and its scheduler, handed to a goroutine.
type taskStart struct {
	s  *Scheduler
	t  *task
	fn func()
}

// startGoroutine gives the task to an idle goroutine if there is one, else to a new one; either
// waits for the task's first resume.
func (s *Scheduler) startGoroutine(t *task, fn func()) {
	idle.mu.Lock()
	var w *worker
	if n := len(idle.work); n > 0 {
		w = idle.work[n-1]
		idle.work[n-1] = nil
		idle.work = idle.work[:n-1]
		idle.taken = true
	}
	idle.mu.Unlock()
	fresh := w == nil
	if fresh {
		w = &worker{wake: make(chan struct{}, 1)}
	}
	w.start = taskStart{s: s, t: t, fn: fn}
	t.resume = w.wake
	if fresh {
		go serveTasks(w)
	}
}

// serveTasks is a task goroutine's body: it runs tasks one after another for as long as each
// returns and its run goes on. The first resume of each task wakes it (the baton chain orders
// the writes to start before it); a closed wake channel ends it.
func serveTasks(w *worker) {
	growStack(0)
	for {
		if _, ok := <-w.wake; !ok {
			return
		}
		next := w.start
		w.start = taskStart{} // keep nothing of a finished run alive while idle
		next.s.runTask(next.t, next.fn)
		if next.s.killing.Load() || !parkIdle(w) {
			return
		}
	}
}

// parkIdle offers the goroutine for the next task; false when enough are idle already.
func parkIdle(w *worker) bool {
	idle.mu.Lock()
	defer idle.mu.Unlock()
	if len(idle.work) >= maxIdleGoroutines {
		return false
	}
	idle.work = append(idle.work, w)
	if !idle.armed {
		idle.armed = true
		if idle.sweep == nil {
			idle.sweep = time.AfterFunc(idleSweep, sweepIdle)
		} else {
			idle.sweep.Reset(idleSweep)
		}
	}
	return true
}

// sweepIdle reviews the idle goroutines: if none was taken since the last review, they exit.
func sweepIdle() {
	idle.mu.Lock()
	defer idle.mu.Unlock()
	if idle.taken && len(idle.work) > 0 {
		idle.taken = false
		idle.sweep.Reset(idleSweep)
		return
	}
	releaseIdleLocked()
	idle.armed = false
}

// ReleaseIdle ends every idle task goroutine now, rather than at the next sweep: for a leak check
// (goleak) right after a run, which should not hang on a timer firing in time on a loaded machine.
func ReleaseIdle() {
	idle.mu.Lock()
	defer idle.mu.Unlock()
	releaseIdleLocked()
}

// releaseIdleLocked closes every idle goroutine's wake channel, which ends it.
func releaseIdleLocked() {
	for i, w := range idle.work {
		close(w.wake)
		idle.work[i] = nil
	}
	idle.work = idle.work[:0]
	idle.taken = false
}
