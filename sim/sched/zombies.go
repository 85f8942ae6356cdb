package sched

// Zombies: the coroutines of tasks that ended by runtime.Goexit (killed, or by their own hand).
//
// No recover stops a Goexit, and iter.Pull passes a coroutine's Goexit on to whoever resumed it:
// left to run its course, it would end the driver, and the run would need a new driver goroutine
// (a goroutine start, and on a machine with an idle core a thread woken to run it) for every
// killed task. Instead the task's outermost deferred function (finish), once it has run the
// scheduling step, parks the coroutine mid-exit, switching back to the driver as at any other
// handoff: the driver's resume returns normally, and the run goes on on the same goroutine.
//
// A zombie cannot serve another task (its Goexit is still under way) and must not be left parked
// for ever (its goroutine and stack would leak). Stopping it (iter.Pull's stop) lets its Goexit
// finish, and passes the Goexit on to the caller of stop, which ends too. So zombies are ended by
// a goroutine that is ending anyway: the driver, once the run is over and it has nothing left to
// do but hand the baton back to Run's goroutine, which it then does from its last deferred call.
// A run that makes many zombies (a crash fault kills a few tasks; a livelock of kills could make
// thousands) hands each batch of zombieBatch to a goroutine of their own, so they stay few.
//
// One goroutine ends several zombies because a deferred call runs even while the goroutine exits:
// each stop is deferred, and the Goexit passed on by one runs the next (TestEndZombies).

import "slices"

// zombieBatch bounds the zombies a run keeps: the driver ends them with the run, or, when a run
// makes more, a goroutine ends each full batch. A default-mix schedule makes about three.
const zombieBatch = 16

// bury takes w, a task coroutine parked mid-Goexit (exiting), off the driver's hands. The driver
// calls it, holding the baton.
func (s *Scheduler) bury(w *worker) {
	s.zombies = append(s.zombies, w)
	if len(s.zombies) == zombieBatch {
		// A copy for the goroutine, which may read it after this run is over and a reused
		// Scheduler (Reset) refills the buffer.
		go endZombies(slices.Clone(s.zombies))
		clear(s.zombies)
		s.zombies = s.zombies[:0]
	}
}

// endZombies stops every zombie; when there is any, the calling goroutine then ends by
// runtime.Goexit, running the deferred calls of its callers. Each stop switches to its coroutine,
// which finishes exiting; its goroutine has ended when stop passes the Goexit on.
func endZombies(zombies []*worker) {
	for _, w := range zombies {
		defer w.stop()
	}
}
