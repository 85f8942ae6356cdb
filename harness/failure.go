package harness

import (
	"errors"
	"fmt"
	"math"
)

// Failure codes. A provider reports one of the first seven; the tool codes name why a tool call
// ended in an error result. The names are contracts: they appear in session logs.
const (
	CodeEmptyResponse         = "EMPTY_RESPONSE"
	CodeRateLimit             = "RATE_LIMIT"
	CodeServer                = "SERVER"
	CodeTimeout               = "TIMEOUT"
	CodeTransport             = "TRANSPORT"
	CodeContextWindowExceeded = "CONTEXT_WINDOW_EXCEEDED"
	CodeUnknown               = "UNKNOWN"

	CodeToolError                 = "TOOL_ERROR"
	CodeToolNotFound              = "TOOL_NOT_FOUND"
	CodeToolPanic                 = "TOOL_PANIC"
	CodeToolAbortedBeforeDispatch = "TOOL_ABORTED_BEFORE_DISPATCH"
	CodeToolNotStarted            = "TOOL_NOT_STARTED"
	CodeToolOutcomeUnknown        = "TOOL_OUTCOME_UNKNOWN"
)

// Failure is a structured, serialisable description of why a model request failed. It is what
// llm/retry records and what a turn that ends in error carries, so the retry decision and the
// post-mortem read the same facts.
type Failure struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Status is the HTTP status, when there was one (100–599).
	Status int `json:"status,omitempty"`
	// ProviderRetryAfterMs is the provider's Retry-After hint in milliseconds; only positive,
	// finite values survive Normalize.
	ProviderRetryAfterMs float64 `json:"providerRetryAfterMs,omitempty"`
	RequestID            string  `json:"requestId,omitempty"`
}

// Normalize drops hints the harness must ignore: a Retry-After that is zero, negative or not
// finite (the spec: "the recorded failure carries no hint"), and a status outside 100–599. It
// also fills an empty code or message, so every recorded failure passes the invariant layer.
func (f Failure) Normalize() Failure {
	if !(f.ProviderRetryAfterMs > 0) || math.IsInf(f.ProviderRetryAfterMs, 0) {
		f.ProviderRetryAfterMs = 0
	}
	if f.Status < 100 || f.Status > 599 {
		f.Status = 0
	}
	if f.Code == "" {
		f.Code = CodeUnknown
	}
	if f.Message == "" {
		f.Message = "(no message)"
	}
	return f
}

// HasRetryAfter reports whether the failure carries a usable provider Retry-After hint.
func (f Failure) HasRetryAfter() bool {
	return f.ProviderRetryAfterMs > 0 && !math.IsInf(f.ProviderRetryAfterMs, 0) && !math.IsNaN(f.ProviderRetryAfterMs)
}

// LlmError is the error type through which a provider reports a Failure (the seed's LlmError).
// Any other error reaching the turn loop is recorded as UNKNOWN with its ErrorChain text.
type LlmError struct {
	Failure Failure
	// Cause is the underlying error, if any (a connection refused inside a transport failure).
	Cause error
}

// Error renders the code and message, and the cause when there is one.
//
// Concatenated, not fmt.Sprintf'd: the text is the same ("%s: %s" and "%s: %s: %v"), and
// every failed turn's agent/error renders it. The cause is formatted as %v formats an error
// (causeText).
func (e *LlmError) Error() string {
	if e.Cause != nil {
		return e.Failure.Code + ": " + e.Failure.Message + ": " + causeText(e.Cause)
	}
	return e.Failure.Code + ": " + e.Failure.Message
}

// causeText is err as fmt's %v renders it: its Error text. An error that formats itself
// (fmt.Formatter, whose Format %v calls instead of Error) and an Error method that panics are left
// to fmt, which renders them as %v does ("<nil>" for a nil receiver, a %!v(PANIC=…) otherwise).
func causeText(err error) (text string) {
	if _, ok := err.(fmt.Formatter); ok {
		return fmt.Sprint(err)
	}
	defer func() {
		if recover() != nil {
			text = fmt.Sprint(err)
		}
	}()
	return err.Error()
}

// Unwrap returns the cause, so errors.Is and errors.As see through an LlmError.
func (e *LlmError) Unwrap() error { return e.Cause }

// FailureOf classifies err the way the turn loop does: an LlmError anywhere in the chain gives
// its (normalised) Failure; anything else is UNKNOWN with the ErrorChain text as message.
func FailureOf(err error) (Failure, bool) {
	if llm, ok := errors.AsType[*LlmError](err); ok {
		return llm.Failure.Normalize(), true
	}
	return Failure{Code: CodeUnknown, Message: ErrorChain(err)}.Normalize(), false
}
