package sched

// Task goroutines are coroutines (iter.Pull), reused within a run and across runs. The driver
// (driver.go) resumes a task by switching to its coroutine, and the task switches back when it
// parks: a direct goroutine switch on the same thread, with no run queue, no wakeup of another
// thread, no futex. (Channel sends between goroutines cost several times as much per round trip,
// and on a machine with two cores each send woke the other core: runtime.futex and runtime.wakep
// led a schedule's profile.)
//
// A fresh goroutine starts on a small stack and grows it by copying as the harness's calls deepen:
// that growth (runtime.newstack, copystack) stood high in a schedule's profile, and growing it in
// one step (growStack) and starting the goroutine still showed. So a coroutine whose task returned
// is kept as an idle worker with its grown stack, and
// the next spawn, of this run or of a later one in the process, hands it a task instead of starting
// a coroutine. Which coroutine runs a task changes nothing a run can observe: a task still waits
// for its first resume, and the baton holder alone decides the order.
//
// Only a task that returns (or panics) frees its coroutine: one that ends by runtime.Goexit (killed,
// or by its own hand) leaves it parked mid-exit, a zombie that ends with the run (zombies.go), and
// one abandoned by the watchdog is never seen again. Idle workers are few (at most
// maxIdleGoroutines) and short-lived: one not taken for a sweep period (idleSweep) is stopped, so
// a process that stops running schedules is left with none shortly after its last Run returns.

import (
	"iter"
	"sync"
	"time"
)

const (
	// maxIdleGoroutines bounds the idle workers of the process; a worker finding that many
	// already idle is stopped. A schedule runs a handful of tasks at a time, a sweep one per worker.
	maxIdleGoroutines = 64
	// idleSweep is how often idle workers are reviewed: when none was taken since the last
	// review, they are all stopped. Short enough that a leak check's retries (goleak's) see them
	// gone.
	idleSweep = 20 * time.Millisecond
)

// idle holds the workers waiting for a task, shared by every Scheduler of the process.
var idle struct {
	mu    sync.Mutex
	work  []*worker
	taken bool        // a worker was taken since the last review
	sweep *time.Timer // reviews the idle workers, armed while there are any
	armed bool
}

// worker is a task coroutine. Whoever holds it alone may switch to it: the driver of the run whose
// task it serves, or, while it is idle, the pool (under idle.mu).
type worker struct {
	// resume switches to the coroutine until it parks its task, frees itself, or exits; stop ends
	// an idle one. Both are iter.Pull's.
	resume func() (struct{}, bool)
	stop   func()
	// park switches back from inside the coroutine to whoever resumed it; it is iter.Pull's yield,
	// set when the coroutine starts.
	park  func(struct{}) bool
	start taskStart // set by startWorker before the task's first resume
	// free is set when the task returned and the coroutine waits for another: the driver then
	// offers the worker to the pool.
	free bool
	// exiting is set when the task ended by runtime.Goexit and the coroutine parked mid-exit: the
	// driver then buries it (zombies.go).
	exiting bool
}

// taskStart is a task, its function and its scheduler, handed to a worker.
type taskStart struct {
	s  *Scheduler
	t  *task
	fn func()
}

// newWorker makes a worker whose coroutine starts at its first resume.
func newWorker() *worker {
	w := &worker{}
	w.resume, w.stop = iter.Pull(w.serve)
	return w
}

// startWorker gives the task to an idle worker if there is one, else to a new one, at its first
// resume. The driver calls it, never a task or Run's goroutine: a coroutine may only be switched
// to on the thread it was created on if its creator was locked to one (runtime.LockOSThread), and
// the driver never is, so Run may be called from a locked goroutine.
func (s *Scheduler) startWorker(t *task) {
	idle.mu.Lock()
	var w *worker
	if n := len(idle.work); n > 0 {
		w = idle.work[n-1]
		idle.work[n-1] = nil
		idle.work = idle.work[:n-1]
		idle.taken = true
	}
	idle.mu.Unlock()
	if w == nil {
		w = newWorker()
	}
	w.start = taskStart{s: s, t: t, fn: t.fn}
	t.fn = nil
	w.free = false
	t.w = w
}

// serve is a worker coroutine's body: it runs tasks one after another for as long as each returns.
// The first resume of each task switches to it, which finds the task in start; after the task
// returns it parks as free until the next task's first resume, or until it is stopped.
func (w *worker) serve(park func(struct{}) bool) {
	growStack(0)
	w.park = park
	for {
		next := w.start
		w.start = taskStart{} // keep nothing of a finished run alive while idle
		next.s.runTask(next.t, next.fn)
		w.free = true
		if !park(struct{}{}) {
			return // stopped
		}
	}
}

// recycle offers the free worker of a finished task to the pool, or stops it when enough are idle.
// The driver calls it once the worker has switched back, so no one else can be switching to it.
func recycle(w *worker) {
	if !parkIdle(w) {
		w.stop()
	}
}

// parkIdle offers the worker for the next task; false when enough are idle already.
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

// sweepIdle reviews the idle workers: if none was taken since the last review, they are stopped.
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

// releaseIdleLocked stops every idle worker: its coroutine returns, and its goroutine ends, before
// stop returns.
func releaseIdleLocked() {
	for i, w := range idle.work {
		w.stop()
		idle.work[i] = nil
	}
	idle.work = idle.work[:0]
	idle.taken = false
}
