package failmap

import (
	"context"
	"errors"
	"net"

	"github.com/turnsim/turnsim/harness"
)

// ErrRequestTimeout is the cause an adapter gives its per-request deadline, so that the deadline
// (TIMEOUT, retryable) is told apart from the caller's own cancellation (not a failure at all).
var ErrRequestTimeout = errors.New("request timeout")

// FromTransport classifies an error that came without an HTTP status: the adapter's request
// timeout and network timeouts are TIMEOUT; everything else on the wire (connection refused or
// reset, a body cut short, a malformed stream) is TRANSPORT. The error stays the LlmError's cause,
// so the log's message shows the whole chain.
func FromTransport(err error, reqCtx context.Context) *harness.LlmError {
	code := harness.CodeTransport
	var netErr net.Error
	switch {
	case reqCtx != nil && errors.Is(context.Cause(reqCtx), ErrRequestTimeout):
		code = harness.CodeTimeout
		err = ErrRequestTimeout
	case errors.As(err, &netErr) && netErr.Timeout():
		code = harness.CodeTimeout
	}
	msg := "request failed on the wire"
	if code == harness.CodeTimeout {
		msg = "request timed out"
	}
	return &harness.LlmError{Failure: harness.Failure{Code: code, Message: msg}.Normalize(), Cause: err}
}

// Cut is the failure of a stream that ended cleanly on the wire but before its finish: the
// answer is incomplete, and retrying it (not appending to it) is the only safe continuation.
func Cut() *harness.LlmError {
	return &harness.LlmError{Failure: harness.Failure{Code: harness.CodeTransport, Message: "stream ended before its finish"}}
}

// Empty is the failure of a stream that finished with no content.
func Empty() *harness.LlmError {
	return &harness.LlmError{Failure: harness.Failure{Code: harness.CodeEmptyResponse, Message: "the answer has no content"}}
}
