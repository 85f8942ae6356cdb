// Package callctx gives one streamed HTTP request its context. The harness hands a context to
// Provider.Stream and another (possibly different) one to each Stream.Next, but the SDK binds the
// whole response body to the first: callctx makes either one's cancellation end the request, so a
// cancel interrupts every wait, a stalled stream included, and it adds the per-request timeout
// with a cause of its own so a deadline (TIMEOUT) is told apart from a cancel.
//
// Given a harness.Runtime, the request's timers are the runtime's: the deadline is a task that
// sleeps through it, and a Next's other context is watched by another, so that under the
// simulator's scheduler a deadline is virtual and every wake-up happens in the scheduler's order.
// Without one (production), the deadline is context.WithTimeoutCause's wall-clock timer and a
// Next's other context is watched by context.AfterFunc.
package callctx

import (
	"context"
	"time"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/provider/internal/failmap"
)

// Call is the lifetime of one request.
type Call struct {
	// parent is the context Stream was given: c.ctx derives from it, so its cancellation needs
	// no watcher.
	parent context.Context
	ctx    context.Context
	cancel context.CancelCauseFunc
	stop   context.CancelFunc
	rt     harness.Runtime
}

// watchMax bounds how long a runtime task watches a Next's context: longer than any request, so
// it never ends a watch that matters, and finite, so a forgotten watch cannot outlive a run.
const watchMax = 24 * time.Hour

// Start begins a request under parent, ended after timeout (0: no timeout of its own). rt, if not
// nil, times the deadline; nil times it with the wall clock.
func Start(parent context.Context, timeout time.Duration, rt harness.Runtime) *Call {
	c := &Call{parent: parent, stop: func() {}, rt: rt}
	ctx := parent
	if timeout > 0 && rt == nil {
		ctx, c.stop = context.WithTimeoutCause(parent, timeout, failmap.ErrRequestTimeout)
	}
	c.ctx, c.cancel = context.WithCancelCause(ctx)
	if timeout > 0 && rt != nil {
		// The deadline's own task: it ends when its sleep runs out (the request timed out) or
		// when the request ends first, whichever the runtime sees first.
		rt.Go("request deadline", func() {
			if rt.Sleep(timeout, c.ctx) == nil {
				c.cancel(failmap.ErrRequestTimeout)
			}
		})
	}
	return c
}

// Context is the request's context: pass it to the SDK.
func (c *Call) Context() context.Context { return c.ctx }

// During runs f while ctx, too, can end the request: a Next whose context is cancelled cancels
// the body read it is blocked in. The harness passes Next the context it gave Stream, which the
// request's context already derives from: then nothing needs watching.
func (c *Call) During(ctx context.Context, f func()) {
	if ctx == nil || ctx == c.parent || ctx == c.ctx || ctx.Done() == nil {
		f()
		return
	}
	if c.rt != nil {
		watched, unwatch := context.WithCancel(context.Background())
		defer unwatch()
		c.rt.Go("request cancel watch", func() {
			_ = c.rt.Sleep(watchMax, ctx, watched, c.ctx)
			if ctx.Err() != nil && watched.Err() == nil {
				c.cancel(context.Cause(ctx))
			}
		})
		f()
		return
	}
	unhook := context.AfterFunc(ctx, func() { c.cancel(context.Cause(ctx)) })
	defer unhook()
	f()
}

// Cancelled returns the cause when the request ended by a cancellation (of the Stream's or a
// Next's context) rather than by its own timeout: such an end is no provider failure, and the
// adapter returns the cause for the turn loop to record.
func (c *Call) Cancelled() error {
	if c.ctx.Err() == nil {
		return nil
	}
	cause := context.Cause(c.ctx)
	if cause == failmap.ErrRequestTimeout {
		return nil
	}
	return cause
}

// End releases the request's timer and context.
func (c *Call) End() {
	c.cancel(context.Canceled)
	c.stop()
}
