package harness

import (
	"context"
	"time"
)

// Clock is how the harness reads time. github.com/benbjohnson/clock's Clock satisfies it, so
// production code passes clock.New() and tests may pass a clock.Mock; the simulator passes its
// own virtual clock. The harness only ever asks for Now: waiting goes through the Runtime.
type Clock interface {
	Now() time.Time
}

// Runtime is the seam between the turn loop and the world it runs in. Every goroutine the harness
// starts, every sleep and every wait goes through it, so the same code runs on real goroutines in
// production and on the simulator's deterministic scheduler, where one task runs at a time and
// virtual time jumps to the next timer.
//
// Rule for implementations and callers alike: a Runtime method may block, so no caller holds a
// mutex across one. In the simulator a task only yields inside these methods; a mutex held across
// a yield would deadlock the world.
type Runtime interface {
	// Clock is the clock whose time the timers of Sleep are measured in.
	Clock() Clock
	// Go starts fn as a new task. name says what the task is, for deadlock and hang reports.
	Go(name string, fn func())
	// Sleep waits for d, or until any of cancel is done, whichever comes first. It returns nil when
	// the full delay elapsed, and context.Cause of the first done context otherwise; when one is
	// already done it returns at once. This is the seed's cancellableDelay, with the fused signal
	// (step and plugin lifetime) passed as several contexts, because merging contexts needs a
	// goroutine the simulator would not own. The cancel list is the caller's: an implementation
	// must neither keep nor write it once Sleep returns (copy the contexts it needs longer).
	Sleep(d time.Duration, cancel ...context.Context) error
	// NewQueue makes an unbounded FIFO queue whose Get blocks through this runtime.
	NewQueue(name string) Queue
}

// Preempter is a Runtime that may run another task at a preemption point: a place in the agent's
// own tasks (the driver, the turn loop, the llm-retry plugin) where the harness is about to take
// its lock, or read state, that a Cancel or a Dispose from another task can change. On real
// goroutines that can happen anywhere; a runtime that runs one task at a time and switches only
// inside its own methods (the simulator's scheduler) would never interleave a cancel there, so
// the harness names each such place to it. (The public methods have none: their caller can be
// preempted before the call as well as at its start.) A Runtime that does not implement it (the
// production runtime) costs nothing there.
//
// Rule: no lock is held at a preemption point, as across any runtime call; each sits before the
// lock whose decision it exposes, never under it.
type Preempter interface {
	// Preempt lets another task run first, or not, and returns; site names the place, e.g.
	// "driver: before lock".
	Preempt(site string)
}

// Queue is an unbounded FIFO hand-off between tasks: Put never blocks, Get waits for an item.
// The tool executor uses it as the seed's Promise.race over in-flight calls, and WhenIdle uses it
// to be told when the agent settles.
type Queue interface {
	// Put adds v; a waiting Get receives it. It never blocks.
	Put(v any)
	// Get returns the oldest item, waiting for one if the queue is empty. It returns
	// context.Cause(ctx) if ctx is done before an item arrives.
	Get(ctx context.Context) (any, error)
}

// Random is the one injected source of randomness: floats for retry jitter and bytes for retry
// UUIDs (uuid.NewRandomFromReader). *math/rand.Rand satisfies it. The harness serialises access,
// so an implementation need not be safe for concurrent use.
type Random interface {
	Float64() float64
	Read(p []byte) (int, error)
}
