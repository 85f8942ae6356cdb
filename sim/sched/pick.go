package sched

// Picking: which runnable task runs next. This is the scheduler's only source of choice, kept
// behind a small interface so that other strategies (PCT's priority change points, a replayed
// schedule) can replace the uniform draw without touching the loop.

import "github.com/turnsim/turnsim/internal/splitmix"

// picker chooses the next task to run. runnable is non-empty and in creation order; pick returns
// an index into it. An implementation must be deterministic given its own seeded state and the
// sequence of calls, since that is what makes a run reproducible.
type picker interface {
	pick(runnable []*task) int
}

// uniformPicker draws uniformly with a seeded source. A single runnable task is taken without a
// draw, which keeps the hot path cheap and is as reproducible as drawing. The source is the
// Scheduler's own (rng), reset for each run, rather than a *rand.Rand made for each.
type uniformPicker struct {
	rng *splitmix.Rand
}

func (p uniformPicker) pick(runnable []*task) int {
	if len(runnable) == 1 {
		return 0
	}
	return p.rng.Intn(len(runnable))
}

// pctPicker is PCT, probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi,
// Nagarakatte, ASPLOS 2010): every task gets a random priority and the highest-priority runnable
// task always runs, except that at depth-1 randomly chosen scheduling steps the task about to run
// drops to a priority below every initial one. A bug that needs d particular ordering
// constraints is then found with probability at least 1/(n·k^(d-1)), far more often than by
// uniform choice when the constraints are few but the schedule is long.
//
// A task's priority is kept in the task itself (pctPriority), not in a map keyed by task: the
// map's hashing and growth were most of a pick's cost.
type pctPicker struct {
	rng *splitmix.Rand
	// changes holds the change points: the scheduling steps (counted from 1) at which a priority
	// drops, each with the priority it drops to (lower for later change points), in no order.
	changes []pctChange
	step    int
	// preemptions counts the preemption points where the picker chose (Scheduler.Preempt):
	// they are steps of their own, on which a change point may be placed too.
	preemptions int
}

// pctChange is a change point: at scheduling step step (at the step-th preemption point when
// atPreemption), the task about to run drops to priority.
type pctChange struct {
	step         int
	priority     int64
	atPreemption bool
}

// pctStepsMax is the number of steps change points are drawn among: long enough to reach the
// late decisions of a typical run (a few hundred handoffs).
const pctStepsMax = 1000

// pctPreemptionsMax is the number of preemption points a change point placed on one is drawn
// among: about as many as a default-mix run passes with another task runnable, so that such a
// change point usually lands on a check the harness makes while a cancel or a dispose could
// run.
const pctPreemptionsMax = 16

// init readies the zero p, drawing depth-1 change points into changes, an empty buffer (nil: a
// new one), each on a handoff step or, half the time, on a preemption point (the aim at the
// harness's check-then-lock windows). A step drawn twice keeps the later change point's (lower)
// priority.
func (p *pctPicker) init(rng *splitmix.Rand, depth int, changes []pctChange) {
	if cap(changes) < depth-1 {
		changes = make([]pctChange, 0, depth-1)
	}
	p.rng, p.changes = rng, changes
	for i := 1; i < depth; i++ {
		if rng.Intn(2) == 0 {
			p.setChange(pctChange{step: 1 + rng.Intn(pctPreemptionsMax), priority: int64(depth - i), atPreemption: true})
			continue
		}
		p.setChange(pctChange{step: 1 + rng.Intn(pctStepsMax), priority: int64(depth - i)})
	}
}

// setChange adds the change point c, replacing an earlier one at its step.
func (p *pctPicker) setChange(c pctChange) {
	for i := range p.changes {
		if p.changes[i].step == c.step && p.changes[i].atPreemption == c.atPreemption {
			p.changes[i].priority = c.priority
			return
		}
	}
	p.changes = append(p.changes, c)
}

func (p *pctPicker) pick(runnable []*task) int {
	p.step++
	return p.choose(runnable, p.step, false)
}

// preempt is PCT's choice at a preemption point: the highest-priority runnable task, as at any
// step, unless a change point placed on this preemption point drops the task about to run.
func (p *pctPicker) preempt(runnable []*task) int {
	p.preemptions++
	return p.choose(runnable, p.preemptions, true)
}

// choose returns the highest-priority runnable task, once the change point at step (counted
// among preemption points when atPreemption), if any, has dropped the task about to run.
func (p *pctPicker) choose(runnable []*task, step int, atPreemption bool) int {
	best := -1
	for i, t := range runnable {
		if t.pctPriority == 0 { // first seen: every priority drawn or dropped to is positive
			t.pctPriority = int64(pctStepsMax) + p.rng.Int63n(1<<40) // above every dropped priority
		}
		if best < 0 || t.pctPriority > runnable[best].pctPriority {
			best = i
		}
	}
	for _, c := range p.changes {
		if c.step != step || c.atPreemption != atPreemption {
			continue
		}
		runnable[best].pctPriority = c.priority
		best = -1
		for i, t := range runnable {
			if best < 0 || t.pctPriority > runnable[best].pctPriority {
				best = i
			}
		}
		break
	}
	return best
}
