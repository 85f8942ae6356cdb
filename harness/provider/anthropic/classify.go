package anthropic

import (
	"encoding/json"
	"errors"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/provider/internal/callctx"
	"github.com/turnsim/turnsim/harness/provider/internal/failmap"
)

// classify turns an SDK error into what the turn loop expects: the cancellation's cause when the
// caller cancelled (no provider failure), else an LlmError with the mapped Failure.
func (p *Provider) classify(call *callctx.Call, err error) error {
	if cause := call.Cancelled(); cause != nil {
		return cause
	}
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		if apiErr.StatusCode < 400 && apiErr.Type() == "" && apiErr.Message == "" {
			// An error event whose body is not an error object: the stream itself is broken.
			return failmap.Malformed(err)
		}
		if apiErr.StatusCode < 400 {
			return &harness.LlmError{Failure: inStream(string(apiErr.Type()), apiErr.Message), Cause: err}
		}
		var h map[string][]string
		if apiErr.Response != nil {
			h = apiErr.Response.Header
		}
		f := failmap.FromResponse(failmap.Response{Status: apiErr.StatusCode, Type: string(apiErr.Type()), Message: apiErr.Message, Header: h}, p.cfg.Clock.Now())
		return &harness.LlmError{Failure: f, Cause: err}
	}
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &syntaxErr) || errors.As(err, &typeErr) || strings.Contains(err.Error(), "received error while streaming") {
		return failmap.Malformed(err)
	}
	return failmap.FromTransport(err, call.Context(), p.endpoint)
}

// inStream maps an error event inside a 200 stream: overloaded_error and api_error are SERVER,
// rate_limit_error RATE_LIMIT, timeout_error TIMEOUT, a context overflow (by its type or its
// message) CONTEXT_WINDOW_EXCEEDED; anything else UNKNOWN. No status: the HTTP status was 200,
// and the failure is not it.
func inStream(kind, message string) harness.Failure {
	f := harness.Failure{Code: harness.CodeUnknown, Message: failmap.Clip("stream error: " + kind + ": " + message)}
	switch {
	case failmap.ContextOverflow(kind, "", message):
		f.Code = harness.CodeContextWindowExceeded
	case kind == "overloaded_error" || kind == "api_error":
		f.Code = harness.CodeServer
	case kind == "rate_limit_error":
		f.Code = harness.CodeRateLimit
	case kind == "timeout_error":
		f.Code = harness.CodeTimeout
	}
	return f.Normalize()
}
