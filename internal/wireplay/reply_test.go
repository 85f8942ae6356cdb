package wireplay

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
)

var now = time.Date(2026, 12, 1, 12, 0, 0, 250_000_000, time.UTC)

func noCalls(j int) (string, string, string) { return "call-1-1", "read", `{"a":1}` }

// kinds lists the kinds of a reply's frames.
func kinds(r *Reply) []int {
	var out []int
	for {
		f, ok := r.Next()
		if !ok {
			return out
		}
		out = append(out, f.Kind)
	}
}

// What goes out first, and then, for each shape of answer.
func TestRepliesByShape(t *testing.T) {
	fail := func(code string, status int) *faults.Fail {
		return &faults.Fail{Code: code, Message: "m", Status: status}
	}
	wire := func(w faults.Wire) *faults.Wire { return &w }
	for name, tc := range map[string]struct {
		answer  faults.Answer
		opening int
		status  int
		frames  []int
	}{
		"clean":                 {faults.Answer{Chunks: 2, Finish: harness.FinishCompleted}, Respond, 200, []int{FrameStart, FrameText, FrameText, FrameFinish}},
		"tool calls":            {faults.Answer{Calls: []faults.Call{{Name: "read"}}, Finish: harness.FinishToolCalls}, Respond, 200, []int{FrameStart, FrameCall, FrameFinish}},
		"empty":                 {faults.Answer{Finish: harness.FinishCompleted}, Respond, 200, []int{FrameStart, FrameFinish}},
		"429":                   {faults.Answer{Fail: fail(harness.CodeRateLimit, 429)}, Respond, 429, nil},
		"timeout, no status":    {faults.Answer{Fail: fail(harness.CodeTimeout, 0)}, Stall, 0, nil},
		"408":                   {faults.Answer{Fail: fail(harness.CodeTimeout, 408)}, Respond, 408, nil},
		"transport":             {faults.Answer{Fail: fail(harness.CodeTransport, 0)}, Refuse, 0, nil},
		"in-stream":             {faults.Answer{Fail: fail(harness.CodeServer, 0), Wire: wire(faults.Wire{InStream: true})}, Respond, 200, []int{FrameStart, FrameError}},
		"mid-stream":            {faults.Answer{Chunks: 1, Fail: fail(harness.CodeServer, 503)}, Respond, 200, []int{FrameStart, FrameText, FrameError}},
		"mid-stream transport":  {faults.Answer{Chunks: 1, Fail: fail(harness.CodeTransport, 0)}, Respond, 200, []int{FrameStart, FrameText, FrameCut}},
		"mid-stream stall":      {faults.Answer{Chunks: 1, Fail: fail(harness.CodeTimeout, 0), Wire: wire(faults.Wire{Stall: true})}, Respond, 200, []int{FrameStart, FrameText, FrameStall}},
		"cut before a response": {faults.Answer{Fail: fail(harness.CodeTransport, 0), Wire: wire(faults.Wire{Cut: true})}, Refuse, 0, nil},
		"malformed":             {faults.Answer{Chunks: 1, Fail: fail(harness.CodeTransport, 0), Wire: wire(faults.Wire{Malformed: true})}, Respond, 200, []int{FrameStart, FrameText, FrameMalformed, FrameFinish}},
		"finish reason":         {faults.Answer{Chunks: 1, Fail: fail(harness.CodeUnknown, 0), Wire: wire(faults.Wire{FinishReason: "content_filter"})}, Respond, 200, []int{FrameStart, FrameText, FrameFinish}},
	} {
		t.Run(name, func(t *testing.T) {
			r := New(&tc.answer, noCalls)
			opening, _ := r.Opening()
			assert.Equal(t, tc.opening, opening)
			if opening != Respond {
				return
			}
			head := r.Head(now, 1)
			assert.Equal(t, tc.status, head.Status)
			if head.Body != nil {
				assert.Equal(t, "application/json", head.Header.Get("Content-Type"))
				return
			}
			assert.Equal(t, tc.frames, kinds(r))
		})
	}
}

// Each Retry-After form: the header written, and the hint a reader must take from it.
func TestRetryAfterForms(t *testing.T) {
	for form, tc := range map[string]struct {
		ms            float64
		header, value string
		hintMs        float64
	}{
		faults.RetryAfterMs:      {1234.5, "Retry-After-Ms", "1234.5", 1234.5},
		faults.RetryAfterSeconds: {1200, "Retry-After", "2", 2000},
		faults.RetryAfterDate:    {1500, "Retry-After", "Tue, 01 Dec 2026 12:00:02 GMT", 1750},
		faults.RetryAfterRFC850:  {1500, "Retry-After", "Tuesday, 01-Dec-26 12:00:02 GMT", 1750},
		faults.RetryAfterAsctime: {1500, "Retry-After", "Tue Dec  1 12:00:02 2026", 1750},
		faults.RetryAfterBoth:    {1500, "Retry-After-Ms", "1500", 1500},
		faults.RetryAfterJunk:    {1501, "Retry-After", "1.5", 0},
	} {
		t.Run(form, func(t *testing.T) {
			h := http.Header{}
			assert.Equal(t, tc.hintMs, writeRetryAfter(h, tc.ms, form, now))
			assert.Equal(t, tc.value, h.Get(tc.header))
		})
	}
	h := http.Header{}
	assert.Zero(t, writeRetryAfter(h, -40, faults.RetryAfterSeconds, now), "a negative hint is no hint")
	assert.Equal(t, "-40", h.Get("Retry-After-Ms"), "and goes out as it is")
}

// Both protocols' bytes, for an error status, an in-stream error by code, and a tool call with
// no arguments.
func TestProtocolBytes(t *testing.T) {
	a := faults.Answer{Fail: &faults.Fail{Code: harness.CodeContextWindowExceeded, Message: "too long", Status: 400}}
	body := string(New(&a, noCalls).Head(now, 1).Body)
	assert.Equal(t, `{"error":{"message":"too long","type":"invalid_request_error","param":null,"code":"context_length_exceeded"}}`, body)
	a.Wire = &faults.Wire{Protocol: faults.ProtocolAnthropic}
	body = string(New(&a, noCalls).Head(now, 1).Body)
	assert.Equal(t, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: too long"}}`, body)

	s := faults.Answer{Fail: &faults.Fail{Code: harness.CodeRateLimit, Message: "slow"}, Wire: &faults.Wire{InStream: true, ByCode: true, ErrorType: "rate_limit_exceeded"}}
	r := New(&s, noCalls)
	r.Next()
	f, _ := r.Next()
	assert.Equal(t, "data: {\"error\":{\"message\":\"slow\",\"type\":null,\"param\":null,\"code\":\"rate_limit_exceeded\"}}\n\n", string(f.Data))

	c := faults.Answer{Calls: []faults.Call{{Name: "frobnicate"}}, Finish: harness.FinishToolCalls, Wire: &faults.Wire{Protocol: faults.ProtocolAnthropic}}
	r = New(&c, func(int) (string, string, string) { return "call-1-1", "frobnicate", "" })
	r.Next()
	f, _ = r.Next()
	require.Equal(t, FrameCall, f.Kind)
	assert.NotContains(t, string(f.Data), "input_json_delta", "no arguments: no input fragments")
	assert.Equal(t, 2, strings.Count(string(f.Data), "\n\n"), "the block's start and stop")
}
