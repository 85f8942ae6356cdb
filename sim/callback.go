package sim

import (
	"errors"
	"fmt"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
)

// The world's actors that act from inside the harness's own callbacks: a session observer that
// calls the agent back (or panics) on a chosen event, and a compaction handler that deliberates.
// Both reach code paths no user action from outside can: the agent's API entered from a task
// that is itself in the middle of an append, and a waterfall decision that outlives the llm-retry
// plugin.

// armedObserver is an observer-callback action whose time has come: it fires on the next event
// of its type, once. plan is the plan's own action, read only: a copy made each 200 bytes.
type armedObserver struct {
	action int
	plan   *faults.Action
	fired  bool
}

// errObserverPanic is what a planned observer panics with.
const observerPanicText = "a session observer panicked as planned"

// callBack runs, inside the session's observer, every armed callback waiting for e's type. It
// calls the agent exactly as a user's observer would: from the appending task, with the
// agent's public API.
func (w *world) callBack(e harness.Event) {
	for i := range w.armedObservers {
		arm := &w.armedObservers[i]
		if arm.fired || arm.plan.On != e.Type || w.down {
			continue
		}
		arm.fired = true
		w.tracer.strike(arm.plan.Fault)
		if arm.plan.Then == faults.ThenPanic {
			value := fmt.Sprintf("%s (on %s, event %d)", observerPanicText, e.Type, e.Seq)
			at := w.tracer.nowMs()
			w.tracer.record(func(tr *properties.Trace) {
				tr.ObserverPanics = append(tr.ObserverPanics, properties.ObserverPanic{AtMs: at, Seq: e.Seq, Value: value})
			})
			panic(value)
		}
		then := *arm.plan
		then.Kind = arm.plan.Then
		w.perform(arm.action, &then)
	}
}

// deliberatingHandler is a request-error handler that thinks before it decides: it waits
// delayMs through the runtime (ended by the step's cancellation only, as a handler of the user's
// would be) over a failure its inner handler may answer, then lets the inner one decide.
// Its next *failures decisions fail: it returns an error, with a retry the error must cancel.
type deliberatingHandler struct {
	inner    harness.RequestErrorHandler
	rt       harness.Runtime
	tracer   *tracer
	delayMs  int64
	failures *int
}

// errDeliberationFailed is what a failing decision of the deliberating handler returns.
var errDeliberationFailed = errors.New("compaction fallback: the other model could not be reached")

func (h *deliberatingHandler) HandleRequestError(req *harness.RequestError, next func() bool) (bool, error) {
	if req.Failure.Code != harness.CodeContextWindowExceeded {
		return h.inner.HandleRequestError(req, next) // nothing to deliberate: it will pass
	}
	h.tracer.strike(faults.SlowCompaction)
	if err := h.rt.Sleep(ms(h.delayMs), req.Ctx); err != nil {
		return false, nil
	}
	if *h.failures > 0 {
		*h.failures--
		h.tracer.handlerFailed(req, errDeliberationFailed)
		return true, errDeliberationFailed
	}
	return h.inner.HandleRequestError(req, next)
}
