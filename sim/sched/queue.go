package sched

// Queues: the simulator's harness.Queue, an unbounded FIFO whose Get parks the calling task.

import (
	"context"
	"fmt"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/internal/spare"
)

// NewQueue makes an unbounded FIFO queue whose Get parks the calling task until an item arrives.
// name appears in block sites ("blocked on queue tools.Get"), so deadlock reports say what each
// task waited for.
func (s *Scheduler) NewQueue(name string) harness.Queue {
	q := s.kept.queues.take() // an earlier run's, with its buffers, or a new one
	*q = queue{s: s, name: name, items: spare.Emptied(q.items), waiters: spare.Emptied(q.waiters)}
	return q
}

// queue holds either items or waiters, never both: Put hands an item straight to the first waiter.
// Items are a slice with a head index, and both slices are reused, so a steady hand-off allocates
// nothing. Its state belongs to the baton holder, like every task field.
type queue struct {
	s       *Scheduler
	name    string
	items   []any
	head    int     // items[head:] are queued, oldest first
	waiters []*task // parked Gets, first come first served
}

// Put appends v, or hands it to the longest-waiting Get, which becomes runnable. It never yields,
// so a task can put several items before any waiter runs. Call it from a task, or before Run;
// while the run is being unwound it drops v, since no task will take it.
func (q *queue) Put(v any) {
	if q.s.killing.Load() {
		return
	}
	if len(q.waiters) > 0 {
		w := q.waiters[0]
		q.removeWaiter(w)
		w.wake(v, nil)
		return
	}
	q.items = append(q.items, v)
}

// Get returns the oldest item at once if there is one, even when ctx is done. Otherwise it
// returns context.Cause(ctx) at once if ctx is done, or parks the task until Put hands it an item
// or the loop finds ctx done. A nil ctx is never done.
func (q *queue) Get(ctx context.Context) (any, error) {
	t := q.s.caller("Queue.Get")
	if q.head < len(q.items) {
		return q.pop(), nil
	}
	if ctx != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		t.contexts = append(t.contexts, ctx)
	}
	t.state = taskWaiting
	t.queue = q
	q.waiters = append(q.waiters, t)
	q.s.yield(t)
	v, err := t.item, t.err
	t.item, t.err = nil, nil
	return v, err
}

// pop removes and returns the oldest item; the caller has checked there is one.
func (q *queue) pop() any {
	v := q.items[q.head]
	q.items[q.head] = nil // let the item be collected once taken
	q.head++
	switch {
	case q.head == len(q.items):
		q.items, q.head = q.items[:0], 0
	case q.head >= 64 && 2*q.head >= len(q.items):
		// A queue that never empties would otherwise grow forever: slide the live items down.
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	return v
}

// removeWaiter takes t out of the waiters, keeping the others in arrival order.
func (q *queue) removeWaiter(t *task) {
	for i, w := range q.waiters {
		if w == t {
			copy(q.waiters[i:], q.waiters[i+1:])
			q.waiters[len(q.waiters)-1] = nil
			q.waiters = q.waiters[:len(q.waiters)-1]
			return
		}
	}
	panic(fmt.Sprintf("sched: invariant violated: task %q waits on queue %s but is not among its waiters", t.fullName(), q.name))
}
