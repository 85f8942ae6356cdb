package sched

// Reuse: a sweep runs thousands of schedules one after another, and each made a Scheduler (with
// its inline tasks), its queues, its processes, its tasks past the first eight and the channel
// Run waits on. Reset readies a Scheduler whose run is over for the next one, keeping that memory.
//
// What a run handed out (its queues and processes) is reused by the next run, so nothing may use
// them once Reset is called; what a run returns (the RunReport, its findings) is never reused.
// A run that abandoned a hung task is never reset: the task's goroutine may still touch the
// Scheduler, its queues or its tasks at any time.

// sparesMax bounds the objects of one kind a Scheduler keeps for its next run, so that a runaway
// run (thousands of tasks) does not stay allocated for every later one.
const sparesMax = 64

// spares keeps the objects of one kind a Scheduler's runs allocated, for its later runs: take
// hands out all[used], the next one not yet taken in this run, and makes more when those run out.
// The taker resets what it takes; a slice of pointers, not of values, because a taken object's
// address is handed out and must not move.
type spares[T any] struct {
	all  []*T
	used int
}

// take returns an object not used in this run: a spare, holding the state of an earlier run for
// the caller to reset, or a new zero one.
func (sp *spares[T]) take() *T {
	if sp.used < len(sp.all) {
		x := sp.all[sp.used]
		sp.used++
		return x
	}
	x := new(T)
	if len(sp.all) < sparesMax {
		sp.all = append(sp.all, x)
		sp.used++
	}
	return x
}

// kept is what a Scheduler keeps from one run for the next (Reset).
type kept struct {
	tasks     spares[task] // tasks past tasksFirst
	queues    spares[queue]
	processes spares[Process]
	// pctChanges is the PCT picker's buffer of change points (the picker's own in a PCT run).
	pctChanges []pctChange
	// drive is s.drive, made once (startDriver).
	drive func()
}

// Reset readies s for another run with opts, as New(opts) would make it, but keeping the memory
// of its last run (its tasks, queues, processes and their buffers) for the next: a sweep resets
// the Scheduler of its previous seed instead of allocating one per seed. The queues and processes
// of the last run must no longer be used; the RunReport it returned shares nothing with s and
// stays valid. Reset panics when a Run is under way, or when the last run abandoned a hung task, which
// may still touch s at any time: such a Scheduler must be dropped, never reused.
func (s *Scheduler) Reset(opts Options) {
	if s.started && !s.over {
		panic("sched: Reset called while a Run is under way")
	}
	if s.hung {
		panic("sched: Reset called on a Scheduler whose run abandoned a hung task; make a new one")
	}
	k, events := s.kept, s.events
	for len(events) > 0 {
		<-events // a stale hang report, sent after the run was over
	}
	k.queues.used, k.tasks.used, k.processes.used = 0, 0, 0
	*s = Scheduler{} // cleared in place; Scheduler{kept: k} would build a whole copy first
	s.kept = k
	s.init(opts)
	s.events = events // Run's channel, kept: Run makes it only when there is none
}
