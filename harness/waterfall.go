package harness

import (
	"context"
	"fmt"
)

// RequestError is what a request-error handler is given: the failed attempt, where it happened,
// and the conversation, which a handler may change before asking for a retry.
type RequestError struct {
	// Ctx is the step's cancellation; a handler that waits must stop when it is done.
	Ctx          context.Context
	Turn         int
	Step         int
	Attempt      int
	Provider     string
	Failure      Failure
	Err          error
	Conversation *Conversation
}

// RequestErrorHandler is one link of the request-error waterfall. It returns true to have the
// step re-send its request, or calls next() to let the handlers after it decide. A handler that
// returns an error gives no retry; the error is reported to watchers.
type RequestErrorHandler interface {
	HandleRequestError(req *RequestError, next func() bool) (retry bool, err error)
}

// waterfall is the ordered chain of handlers: llm-retry first, then the configured ones.
type waterfall struct {
	handlers []RequestErrorHandler
	// report hears a handler's error: the agent.
	report errorReporter
}

// errorReporter hears an agent/error: the *Agent.
type errorReporter interface {
	emitError(AgentError)
}

// decide runs the chain from handler i. Nothing returned means the failure is terminal.
func (w *waterfall) decide(req *RequestError, i int) bool {
	if i >= len(w.handlers) {
		return false
	}
	retry, err := w.handlers[i].HandleRequestError(req, func() bool { return w.decide(req, i+1) })
	if err != nil {
		w.report.emitError(AgentError{Turn: req.Turn, Step: req.Step, Source: fmt.Sprintf("request-error handler %d (%T)", i, w.handlers[i]), Err: err})
		return false
	}
	return retry
}
