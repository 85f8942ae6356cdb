package sim

import (
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
)

// countingHandler wraps one of the user's request-error handlers to trace the retries it grants
// itself (returning true without handing the decision down, or after the handlers below it said
// no): a fallback to another model re-sends the request on its own authority, and retry-budget
// must allow for that request, just as it does for compaction's.
type countingHandler struct {
	inner  harness.RequestErrorHandler
	tracer *tracer
}

func (h countingHandler) HandleRequestError(req *harness.RequestError, next func() bool) (bool, error) {
	below := false
	retry, err := h.inner.HandleRequestError(req, func() bool {
		below = next()
		return below
	})
	if retry && err == nil && !below {
		turn, step := req.Turn, req.Step
		h.tracer.record(func(tr *properties.Trace) {
			tr.HandlerRetries = append(tr.HandlerRetries, properties.HandlerRetry{Turn: turn, Step: step})
		})
	}
	return retry, err
}

// countHandlerRetries wraps each of the user's handlers; a compaction handler is left as it is,
// since the properties know its budget (see compactionBudgetOf).
func countHandlerRetries(handlers []harness.RequestErrorHandler, t *tracer) []harness.RequestErrorHandler {
	wrapped := make([]harness.RequestErrorHandler, len(handlers))
	for i, h := range handlers {
		if _, ok := h.(*harness.CompactionHandler); ok {
			wrapped[i] = h
			continue
		}
		wrapped[i] = countingHandler{inner: h, tracer: t}
	}
	return wrapped
}
