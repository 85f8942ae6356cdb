package sim

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
