package sched

// Task goroutines are reused within a run. A fresh goroutine starts on a small stack and grows it
// by copying as the harness's calls deepen: in the profile of a schedule's runtime phase that
// growth (runtime.newstack, copystack) took about a fifth of the time. So a goroutine whose task
// returned parks as idle, keeping its grown stack, and the next spawn hands it a task instead of
// starting a goroutine. Which goroutine runs a task changes nothing the run can observe: a task
// still waits for its first resume, and the loop alone decides the order.
//
// Only a task that returns frees its goroutine: one killed (runtime.Goexit) ends with it, and one
// abandoned by the watchdog is never seen again. When the run ends the idle goroutines exit, so a
// finished Run leaves no goroutine behind, as before.

// taskStart is a task and its function, handed to an idle goroutine.
type taskStart struct {
	t  *task
	fn func()
}

// startGoroutine runs the task on an idle goroutine if there is one, else on a new one.
func (s *Scheduler) startGoroutine(t *task, fn func()) {
	s.idleMu.Lock()
	if n := len(s.idle); n > 0 {
		work := s.idle[n-1]
		s.idle = s.idle[:n-1]
		s.idleMu.Unlock()
		work <- taskStart{t: t, fn: fn} // buffered: the goroutine may not be receiving yet
		return
	}
	s.idleMu.Unlock()
	go s.serveTasks(taskStart{t: t, fn: fn})
}

// serveTasks is a task goroutine's body: it runs tasks one after another for as long as each
// returns and the run goes on.
func (s *Scheduler) serveTasks(next taskStart) {
	growStack(0)
	work := make(chan taskStart, 1)
	for {
		s.runTask(next.t, next.fn)
		if s.killing.Load() || !s.parkIdle(work) {
			return
		}
		var ok bool
		if next, ok = <-work; !ok {
			return
		}
	}
}

// parkIdle offers the goroutine for the next task; false once the run is over.
func (s *Scheduler) parkIdle(work chan taskStart) bool {
	s.idleMu.Lock()
	defer s.idleMu.Unlock()
	if s.idleClosed {
		return false
	}
	s.idle = append(s.idle, work)
	return true
}

// closeIdle ends the idle goroutines when the run is over, and any that finishes later.
func (s *Scheduler) closeIdle() {
	s.idleMu.Lock()
	defer s.idleMu.Unlock()
	s.idleClosed = true
	for _, work := range s.idle {
		close(work)
	}
	s.idle = nil
}
