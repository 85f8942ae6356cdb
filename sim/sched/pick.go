package sched

// Picking: which runnable task runs next. This is the scheduler's only source of choice, kept
// behind a small interface so that other strategies (PCT's priority change points, a replayed
// schedule) can replace the uniform draw without touching the loop.

import "math/rand"

// picker chooses the next task to run. runnable is non-empty and in creation order; pick returns
// an index into it. An implementation must be deterministic given its own seeded state and the
// sequence of calls, since that is what makes a run reproducible.
type picker interface {
	pick(runnable []*task) int
}

// uniformPicker draws uniformly with a seeded source. A single runnable task is taken without a
// draw, which keeps the hot path cheap and is as reproducible as drawing.
type uniformPicker struct {
	rng *rand.Rand
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
type pctPicker struct {
	rng      *rand.Rand
	priority map[*task]int64
	// changeAt holds the scheduling steps (counted from 1) at which a priority drops, and the
	// priority it drops to (lower for later change points).
	changeAt map[int]int64
	step     int
}

// pctStepsMax is the number of steps change points are drawn among: long enough to reach the
// late decisions of a typical run (a few hundred handoffs).
const pctStepsMax = 1000

func newPCTPicker(rng *rand.Rand, depth int) *pctPicker {
	p := &pctPicker{rng: rng, priority: map[*task]int64{}, changeAt: map[int]int64{}}
	for i := 1; i < depth; i++ {
		p.changeAt[1+rng.Intn(pctStepsMax)] = int64(depth - i)
	}
	return p
}

func (p *pctPicker) pick(runnable []*task) int {
	p.step++
	best := -1
	for i, t := range runnable {
		prio, ok := p.priority[t]
		if !ok {
			prio = int64(pctStepsMax) + p.rng.Int63n(1<<40) // above every dropped priority
			p.priority[t] = prio
		}
		if best < 0 || prio > p.priority[runnable[best]] {
			best = i
		}
	}
	if low, change := p.changeAt[p.step]; change {
		p.priority[runnable[best]] = low
		best = -1
		for i, t := range runnable {
			if best < 0 || p.priority[t] > p.priority[runnable[best]] {
				best = i
			}
		}
	}
	return best
}
