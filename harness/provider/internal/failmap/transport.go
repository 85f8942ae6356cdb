package failmap

import (
	"context"
	"errors"
	"net"
	"net/url"

	"github.com/turnsim/turnsim/harness"
)

// ErrRequestTimeout is the cause an adapter gives its per-request deadline, so that the deadline
// (TIMEOUT, retryable) is told apart from the caller's own cancellation (not a failure at all).
var ErrRequestTimeout = errors.New("request timeout")

// FromTransport classifies an error that came without an HTTP status on a request to endpoint
// (the method and URL): the adapter's request timeout and network timeouts are TIMEOUT;
// everything else on the wire (connection refused or reset, a body cut short) is TRANSPORT. The
// message names the endpoint and reads the whole error chain (harness.ErrorChain), so the session
// log says where the request went and why it failed there; the error stays the LlmError's cause.
func FromTransport(err error, reqCtx context.Context, endpoint string) *harness.LlmError {
	code := harness.CodeTransport
	var netErr net.Error
	switch {
	case reqCtx != nil && errors.Is(context.Cause(reqCtx), ErrRequestTimeout):
		code = harness.CodeTimeout
		err = ErrRequestTimeout
	case errors.As(err, &netErr) && netErr.Timeout():
		code = harness.CodeTimeout
	}
	what := "failed on the wire"
	if code == harness.CodeTimeout {
		what = "timed out"
	}
	// net/http names the URL itself (url.Error): its inner error is the chain worth reading.
	chain := err
	var urlErr *url.Error
	if errors.As(err, &urlErr) && urlErr.Err != nil {
		chain = urlErr.Err
	}
	message := "request to " + endpoint + " " + what + ": " + harness.ErrorChain(chain)
	return &harness.LlmError{Failure: harness.Failure{Code: code, Message: Clip(message)}.Normalize(), Cause: err}
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

// Malformed is the failure of a stream event that does not decode: the stream is broken, and
// nothing after the event can be trusted.
func Malformed(cause error) *harness.LlmError {
	return &harness.LlmError{Failure: harness.Failure{Code: harness.CodeTransport, Message: "malformed stream event"}, Cause: cause}
}

// UnknownFinish is the failure of an answer that ended with a finish reason the harness has no
// outcome for: a content filter, a refusal, or a reason newer than the adapter. The answer is not
// whole (or not the model's), so it is no completed step; the reason is in the message.
func UnknownFinish(reason string) *harness.LlmError {
	return &harness.LlmError{Failure: harness.Failure{Code: harness.CodeUnknown, Message: Clip("the answer ended with finish reason " + reason)}}
}
