package callctx

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/provider/internal/failmap"
)

// With a runtime, the deadline is the runtime's own timer, not context.WithTimeout's: the
// request's context carries no deadline, and it ends with ErrRequestTimeout exactly when the
// runtime's sleep runs out (in a synctest bubble, whose clock the production runtime reads).
func TestRuntimeTimesTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		begin := time.Now()
		c := Start(context.Background(), 5*time.Second, harness.NewProductionRuntime(nil))
		_, hasDeadline := c.Context().Deadline()
		assert.False(t, hasDeadline, "no wall-clock deadline")
		<-c.Context().Done()
		assert.Equal(t, 5*time.Second, time.Since(begin))
		assert.ErrorIs(t, context.Cause(c.Context()), failmap.ErrRequestTimeout)
		assert.NoError(t, c.Cancelled(), "a deadline is no cancellation")
		c.End()
	})
}

// A request that ends before its deadline ends the deadline's task too: the bubble would
// report it blocked for good otherwise.
func TestEndingARequestEndsItsDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := Start(context.Background(), time.Hour, harness.NewProductionRuntime(nil))
		c.End()
		synctest.Wait() // the deadline's task has seen the end and returned: the bubble has no one left blocked
		assert.NotErrorIs(t, context.Cause(c.Context()), failmap.ErrRequestTimeout)
	})
}

// A Next given a context other than the Stream's: its cancellation ends the read, with its cause,
// through a runtime task (with a runtime) or context.AfterFunc (without).
func TestDuringEndsTheReadOnAnotherContext(t *testing.T) {
	for name, rt := range map[string]func() harness.Runtime{
		"runtime":    func() harness.Runtime { return harness.NewProductionRuntime(nil) },
		"no runtime": func() harness.Runtime { return nil },
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := Start(context.Background(), 0, rt())
				next, cancel := context.WithCancelCause(context.Background())
				cause := errors.New("user pressed stop")
				time.AfterFunc(time.Second, func() { cancel(cause) })
				c.During(next, func() { <-c.Context().Done() })
				require.ErrorIs(t, c.Cancelled(), cause)
				c.End()
			})
		})
	}
}

// The harness hands Next the context it gave Stream: the request's context derives from it, so
// its cancellation reaches the read with nothing watching (no task, no AfterFunc).
func TestDuringOnTheStreamsContextWatchesNothing(t *testing.T) {
	parent, cancel := context.WithCancelCause(context.Background())
	rt := &countingRuntime{Runtime: harness.NewProductionRuntime(nil)}
	c := Start(parent, 0, rt)
	cause := errors.New("stop")
	c.During(parent, func() { cancel(cause) })
	assert.Zero(t, rt.spawned, "no watcher for the Stream's own context")
	assert.ErrorIs(t, c.Cancelled(), cause)
	c.End()
}

type countingRuntime struct {
	harness.Runtime
	spawned int
}

func (r *countingRuntime) Go(name string, fn func()) {
	r.spawned++
	r.Runtime.Go(name, fn)
}
