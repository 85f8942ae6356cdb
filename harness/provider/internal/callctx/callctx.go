// Package callctx gives one streamed HTTP request its context. The harness hands a context to
// Provider.Stream and another (possibly different) one to each Stream.Next, but the SDK binds the
// whole response body to the first: callctx makes either one's cancellation end the request, so a
// cancel interrupts every wait, a stalled stream included, and it adds the per-request timeout
// with a cause of its own so a deadline (TIMEOUT) is told apart from a cancel.
package callctx

import (
	"context"
	"time"

	"github.com/turnsim/turnsim/harness/provider/internal/failmap"
)

// Call is the lifetime of one request.
type Call struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	stop   context.CancelFunc
}

// Start begins a request under parent, ended after timeout (0: no timeout of its own).
func Start(parent context.Context, timeout time.Duration) *Call {
	ctx, stop := parent, context.CancelFunc(func() {})
	if timeout > 0 {
		ctx, stop = context.WithTimeoutCause(parent, timeout, failmap.ErrRequestTimeout)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	return &Call{ctx: ctx, cancel: cancel, stop: stop}
}

// Context is the request's context: pass it to the SDK.
func (c *Call) Context() context.Context { return c.ctx }

// During runs f while ctx, too, can end the request: a Next whose context is cancelled cancels
// the body read it is blocked in.
func (c *Call) During(ctx context.Context, f func()) {
	if ctx != nil && ctx != c.ctx {
		unhook := context.AfterFunc(ctx, func() { c.cancel(context.Cause(ctx)) })
		defer unhook()
	}
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
