// Package spare empties a finished run's buffers for the next one: the scheduler's queues and
// process lists (sim/sched) and the world's trace arrays (sim) are refilled seed after seed of a
// sweep instead of being made afresh.
package spare

// Max bounds a buffer kept for the next run: a rare runaway run's huge one is dropped rather than
// kept allocated for every run after it.
const Max = 256

// Emptied returns b cleared to its capacity and emptied for reuse, or nil when it has space for
// more than Max elements. It is called when a run takes the buffer again: clearing keeps what the
// earlier run left in it (strings, pointers) out of the next run's sight, and lets it be
// collected; to the capacity, since a run may have written past the length its caller kept.
func Emptied[T any](b []T) []T {
	if cap(b) > Max {
		return nil
	}
	b = b[:cap(b)]
	clear(b)
	return b[:0]
}
