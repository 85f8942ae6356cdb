package sched

// Preemption points. A task runs until it enters a runtime primitive, so the window between a
// check of shared state and what the check guards (a "cancelled?" read and the append it allows)
// is never interleaved unless the code calls into the runtime there. The harness marks such
// places with Preempt (harness.Preempter): before it takes a lock, or reads state a Cancel or
// Dispose from another task can change. Here a preemption point is a scheduling point that keeps
// virtual time: the picker may hand the baton to another runnable task first. Two aims make such
// switches likelier than a uniform draw makes them: Options.PreemptRate, the swarm's, gives way
// to another task outright; PCT places some of its priority change points on preemption points.
//
// A preemption point also counts against the run's budget of scheduling decisions, and stops a
// task once the run has a finding: a livelock in the harness that passes only through preemption
// points (a loop of refused appends, which never sleeps or waits) still ends, and ends where no
// lock is held, so unwinding it blocks nothing.

import (
	"runtime"
	"strconv"
)

// Preempt is a preemption point named site (a place in the harness: "driver: before lock"): the
// calling task stays runnable and the picker decides which runnable task goes on, with virtual
// time unchanged. It returns when the calling task runs again; while the run is unwound it
// exits the task, as every primitive does.
func (s *Scheduler) Preempt(site string) {
	t := s.caller("Preempt")
	s.preemptions++
	s.checkWall()
	s.overBudget(0, site)
	if !s.claim(t) {
		runtime.Goexit() // abandoned as hung meanwhile: the run has moved on
	}
	next := s.nextAtPreemption(t)
	if next != t {
		s.baton = next
		t.w.park(struct{}{})
	} else {
		t.at = s.progress.Add(1)
	}
	if s.killing.Load() || t.killed {
		runtime.Goexit()
	}
}

// Preempt is the scheduler's Preempt.
func (p *Process) Preempt(site string) { p.s.Preempt(site) }

// nextAtPreemption decides who runs after t reaches a preemption point: t itself when no other
// task is runnable (parked tasks whose context is done now count as runnable), nil when the run
// is over (a finding), or the picker's choice.
func (s *Scheduler) nextAtPreemption(t *task) *task {
	if len(s.findings) > 0 {
		return nil
	}
	runnable, _, _ := s.scan()
	if len(runnable) < 2 {
		return t
	}
	self := -1
	for i, u := range runnable {
		if u == t {
			self = i
			break
		}
	}
	if self < 0 {
		panic("sched: invariant violated: the task at a preemption point is not runnable")
	}
	i := s.preemptPick(runnable, self)
	if i < 0 || i >= len(runnable) {
		panic("sched: invariant violated: picker chose " + strconv.Itoa(i) + " of " + strconv.Itoa(len(runnable)) + " runnable tasks at a preemption point")
	}
	if i != self {
		s.preempted++
	}
	return runnable[i]
}

// preemptPick is the picker's choice at a preemption point, where runnable[self] is the task
// that reached it. Uniform: with probability PreemptRate another task, drawn uniformly from the
// others; otherwise a uniform draw from all. PCT: its own choice (pctPicker.preempt).
func (s *Scheduler) preemptPick(runnable []*task, self int) int {
	if s.opts.PCTDepth > 0 {
		return s.pct.preempt(runnable)
	}
	if s.opts.PreemptRate > 0 && s.rng.Float64() < s.opts.PreemptRate {
		i := s.rng.Intn(len(runnable) - 1)
		if i >= self {
			i++ // the others, skipping self
		}
		s.preemptedByRate++
		return i
	}
	return s.pick(runnable)
}
