package sched

// The driver: the goroutine that switches to the tasks' coroutines, one at a time.
//
// A task that stops (parks, yields to another task, or returns) has already run the scheduling
// step and left the task to run next in baton; it switches back to the driver, which switches to
// that task. Once the run is over (baton nil) the driver unwinds the unfinished tasks, resuming
// each once with killing set, and then hands the baton back to Run's goroutine (runOver on events).
//
// The driver is not Run's goroutine, because a task that blocks outside the runtime (raw
// channel, mutex, I/O) or spins never switches back, and whoever resumed it is stuck with it; Run's
// goroutine must stay free to take the watchdog's report, abandon the task and return (await in
// scheduler.go).
//
// A coroutine that ends by runtime.Goexit (a killed task, or a task calling it itself) would pass
// the Goexit on to whoever resumed it (iter.Pull does so, so that a Goexit cannot be lost), and no
// recover can stop it. So the task parks mid-exit instead (a zombie, zombies.go), and the driver
// ends the run's zombies last, from where a Goexit costs nothing: it is done anyway, and hands the
// baton back from a deferred call. One case still reaches the driver: a panic raised during a
// task's Goexit that finish recovers, after which the Goexit goes on; the driver's goroutine ends
// with the task's, and a new driver takes over where it stopped.

// drive runs the loop from where the last driver left it: baton, then the tasks left to unwind.
func (s *Scheduler) drive() {
	var t *task // the task resumed last
	over := false
	defer func() {
		// A Goexit passed on from t's coroutine ends this goroutine. If t ended holding the baton,
		// the run goes on in a new driver; if not, t was abandoned as hung (Run's goroutine took
		// the baton) and the run has moved on without this goroutine.
		if !over && t.ended {
			s.startDriver()
		}
	}()
	for {
		if t = s.baton; t == nil {
			if t = s.nextToUnwind(); t == nil {
				break
			}
		}
		s.resume(t)
		if w := t.w; w.free {
			t.w = nil
			recycle(w)
		} else if w.exiting {
			t.w = nil
			s.bury(w)
		}
	}
	over = true
	defer func() { s.events <- runOver }() // after the zombies' Goexits, if any
	endZombies(s.zombies)
}

// startDriver starts a driver goroutine on the loop. Its function value is made once per
// Scheduler and kept across Reset: go s.drive() allocated a closure for the receiver at every run.
func (s *Scheduler) startDriver() {
	if s.kept.drive == nil {
		s.kept.drive = s.drive
	}
	s.drivers++
	go s.kept.drive()
}

// resume hands the baton to t: t runs until it parks, yields or returns, and switches back after
// leaving the next task in baton (or none, when the run is over or being unwound).
func (s *Scheduler) resume(t *task) {
	s.current = t
	s.baton = nil
	if t.w == nil {
		s.startWorker(t)
	}
	t.at = s.progress.Add(1)
	t.w.resume()
}

// nextToUnwind returns the next unfinished task to end, in creation order, or nil when none is
// left; it sets killing when any is. Each is resumed once: the primitive it is parked in calls
// runtime.Goexit, and its defers run. A task never resumed has run nothing and holds no
// coroutine: it is skipped, as are abandoned ones.
func (s *Scheduler) nextToUnwind() *task {
	if s.unwound < len(s.tasks) {
		s.killing.Store(true)
	}
	for s.unwound < len(s.tasks) {
		t := s.tasks[s.unwound]
		s.unwound++
		if t.state != taskAbandoned && t.w != nil {
			return t
		}
	}
	return nil
}
