package openai

import (
	"encoding/json"
	"errors"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

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
		var h map[string][]string
		if apiErr.Response != nil {
			h = apiErr.Response.Header
		}
		f := failmap.FromResponse(failmap.Response{Status: apiErr.StatusCode, Type: apiErr.Type, Code: apiErr.Code, Message: apiErr.Message, Header: h}, p.cfg.Clock.Now())
		return &harness.LlmError{Failure: f, Cause: err}
	}
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) {
		return &harness.LlmError{Failure: inStream(streamErr.Event.Data), Cause: err}
	}
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &syntaxErr) || errors.As(err, &typeErr) {
		return failmap.Malformed(err)
	}
	return failmap.FromTransport(err, call.Context(), p.endpoint)
}

// inStream maps an error event inside a 200 stream ({"error":{"type","code","message"}}), by its
// type or its code, whichever names the kind (compatible servers send either alone): overloaded
// and server errors are SERVER, a rate limit RATE_LIMIT, a timeout TIMEOUT, the context length
// CONTEXT_WINDOW_EXCEEDED; anything else (a spent quota among them) is UNKNOWN. The status stays
// empty: the HTTP status was 200, and the failure is not it.
func inStream(data []byte) harness.Failure {
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	var e struct {
		Type    string `json:"type"`
		Code    any    `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(data, &body) != nil || json.Unmarshal(body.Error, &e) != nil {
		var text string
		_ = json.Unmarshal(body.Error, &text)
		e.Message = text
	}
	code, _ := e.Code.(string)
	kind := strings.ToLower(e.Type + " " + code)
	f := harness.Failure{Code: harness.CodeUnknown, Message: failmap.Clip("stream error: " + e.Message)}
	switch {
	case failmap.ContextOverflow(e.Type, code, e.Message):
		f.Code = harness.CodeContextWindowExceeded
	case failmap.QuotaSpent(e.Type, code):
	case strings.Contains(kind, "rate_limit"):
		f.Code = harness.CodeRateLimit
	case strings.Contains(kind, "timeout"):
		f.Code = harness.CodeTimeout
	case strings.Contains(kind, "overloaded") || strings.Contains(kind, "server_error") || strings.Contains(kind, "api_error"):
		f.Code = harness.CodeServer
	}
	return f.Normalize()
}
