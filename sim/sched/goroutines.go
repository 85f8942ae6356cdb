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
	work  []chan taskStart
	taken bool        // a goroutine was taken since the last review
	sweep *time.Timer // reviews the idle goroutines, armed while there are any
	armed bool
}

// taskStart is a task, its function and its scheduler, handed to an idle goroutine.
type taskStart struct {
	s  *Scheduler
	t  *task
	fn func()
}

// startGoroutine runs the task on an idle goroutine if there is one, else on a new one.
func (s *Scheduler) startGoroutine(t *task, fn func()) {
	start := taskStart{s: s, t: t, fn: fn}
	idle.mu.Lock()
	if n := len(idle.work); n > 0 {
		work := idle.work[n-1]
		idle.work[n-1] = nil
		idle.work = idle.work[:n-1]
		idle.taken = true
		idle.mu.Unlock()
		work <- start // buffered: the goroutine may not be receiving yet
		return
	}
	idle.mu.Unlock()
	go serveTasks(start)
}

// serveTasks is a task goroutine's body: it runs tasks one after another for as long as each
// returns and its run goes on.
func serveTasks(next taskStart) {
	growStack(0)
	work := make(chan taskStart, 1)
	for {
		s := next.s
		s.runTask(next.t, next.fn)
		next = taskStart{} // keep nothing of a finished run alive while idle
		if s.killing.Load() || !parkIdle(work) {
			return
		}
		var ok bool
		if next, ok = <-work; !ok {
			return
		}
	}
}

// parkIdle offers the goroutine for the next task; false when enough are idle already.
func parkIdle(work chan taskStart) bool {
	idle.mu.Lock()
	defer idle.mu.Unlock()
	if len(idle.work) >= maxIdleGoroutines {
		return false
	}
	idle.work = append(idle.work, work)
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
	for i, work := range idle.work {
		close(work)
		idle.work[i] = nil
	}
	idle.work = idle.work[:0]
	idle.taken, idle.armed = false, false
}
