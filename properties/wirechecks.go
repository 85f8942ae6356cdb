package properties

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/turnsim/turnsim/harness"
)

// The wire: answers the world sent as bytes to a real provider adapter (harness/provider/openai
// or anthropic). The world records what it put on the wire in the wire's own terms (a status,
// header values, an error object, a broken event, a cut, a silence); wire-mapped-faithfully says,
// in its own words, what a provider adapter must make of those bytes, and holds the harness's
// record of each request to it. The words are the README's table of real providers, restated
// here, never read from the adapters.

// WireExchange is the world's record of one request it answered over the wire.
type WireExchange struct {
	// Request is the request's place in Trace.Requests.
	Request int
	// Protocol is openai or anthropic; URL is what the adapter requested.
	Protocol, URL string
	// TimeoutMs is the adapter's own request deadline.
	TimeoutMs int64
	// Refused: the connection was refused before any response. Status is the response's status
	// (0 without a response), sent at HeadAt (the clock exactly: a Retry-After date is counted
	// from it) with its Retry-After headers as written ("" when absent).
	Refused              bool
	Status               int
	HeadAt               time.Time
	RetryAfterMs         string
	RetryAfter           string
	ErrorType, ErrorCode string
	ErrorMessage         string
	// InStream: the error object came as an event inside a 200 stream, not as an error
	// response's body (then ErrorType … are the event's).
	InStream bool
	// Content: text or a tool call went out before the answer's end. FinishReason is the finish
	// reason sent ("" if none was).
	Content      bool
	FinishReason string
	// Malformed: an event that does not decode went out. Cut: the body was cut short.
	Malformed, Cut bool
	// GaveUp: the client ended the request on its own (the harness had not cancelled it), at
	// GaveUpAtMs, while the world still had more to send or was silent. OutwaitedMs: how long the
	// client sat through a silence before the world itself cut it (0: it never had to).
	GaveUp      bool
	GaveUpAtMs  int64
	OutwaitedMs int64
	// Cancelled: the harness cancelled the request (nothing for an adapter to map).
	Cancelled bool
	// EmptyArguments are the ids of the tool calls sent with no arguments at all.
	EmptyArguments []string
	// SentArguments are the arguments this request carried back for calls an earlier exchange sent
	// with none, by call id.
	SentArguments map[string]string
}

// wireExpected is what an adapter must make of an exchange: nothing (a whole answer), or a
// failure with this code, status and hint, naming the URL when it is a failure of the connection.
type wireExpected struct {
	failed   bool
	code     string
	status   int
	hintMs   float64
	namesURL bool
	reason   string
}

// expectWire states the mapping of the README's "Real providers" table for what went out.
func expectWire(e WireExchange) wireExpected {
	switch {
	case e.GaveUp:
		return wireExpected{failed: true, code: harness.CodeTimeout, reason: "the adapter's own deadline ended it"}
	case e.Refused:
		return wireExpected{failed: true, code: harness.CodeTransport, namesURL: true, reason: "the connection was refused"}
	case e.Status >= 400:
		return expectStatus(e)
	case e.InStream:
		return wireExpected{failed: true, code: codeOfErrorWords(e.ErrorType+" "+e.ErrorCode, e.ErrorMessage), reason: "an error event " + e.ErrorType + e.ErrorCode}
	case e.Malformed:
		return wireExpected{failed: true, code: harness.CodeTransport, reason: "a malformed event"}
	case e.Cut:
		return wireExpected{failed: true, code: harness.CodeTransport, namesURL: true, reason: "the body was cut"}
	case e.FinishReason != "" && !knownFinish(e.Protocol, e.FinishReason):
		return wireExpected{failed: true, code: harness.CodeUnknown, reason: "finish reason " + e.FinishReason}
	case !e.Content:
		return wireExpected{failed: true, code: harness.CodeEmptyResponse, reason: "an answer with nothing in it"}
	}
	return wireExpected{}
}

// expectStatus maps an error response: 429 is a rate limit, unless its error is a spent quota
// (no rate to wait out: UNKNOWN, no hint); 500, 502, 503, 504 and 529 are the server's; 408 a
// timeout; a 400 or 413 whose error names the context window an overflow; any other status
// UNKNOWN. The status is kept, and the Retry-After read.
func expectStatus(e WireExchange) wireExpected {
	want := wireExpected{failed: true, code: harness.CodeUnknown, status: e.Status, hintMs: wireHintMs(e), reason: "status " + strconv.Itoa(e.Status)}
	words := e.ErrorType + " " + e.ErrorCode
	switch e.Status {
	case 429:
		want.code = harness.CodeRateLimit
		if strings.Contains(words, "insufficient_quota") || strings.Contains(words, "billing_hard_limit_reached") {
			want.code, want.hintMs = harness.CodeUnknown, 0
		}
	case 500, 502, 503, 504, 529:
		want.code = harness.CodeServer
	case 408:
		want.code = harness.CodeTimeout
	case 400, 413:
		if namesContext(words, e.ErrorMessage) {
			want.code = harness.CodeContextWindowExceeded
		}
	}
	return want
}

// codeOfErrorWords maps an in-stream error by its type, its code and its message.
func codeOfErrorWords(kind, message string) string {
	kind = strings.ToLower(kind)
	switch {
	case namesContext(kind, message):
		return harness.CodeContextWindowExceeded
	case strings.Contains(kind, "insufficient_quota"):
		return harness.CodeUnknown
	case strings.Contains(kind, "rate_limit"):
		return harness.CodeRateLimit
	case strings.Contains(kind, "timeout"):
		return harness.CodeTimeout
	case strings.Contains(kind, "overloaded"), strings.Contains(kind, "server_error"), strings.Contains(kind, "api_error"):
		return harness.CodeServer
	}
	return harness.CodeUnknown
}

// namesContext says whether an error's type, code or message says the request overflowed the
// model's context window, in any provider's words.
func namesContext(kind, message string) bool {
	kind, message = strings.ToLower(kind), strings.ToLower(message)
	for _, code := range []string{"context_length_exceeded", "exceed_context_size_error", "request_too_large", "context_window_exceeded"} {
		if strings.Contains(kind, code) {
			return true
		}
	}
	for _, words := range []string{"context length", "context window", "context limit", "context size", "maximum context", "prompt is too long", "too large for model", "model context", "maximum number of tokens"} {
		if strings.Contains(message, words) {
			return true
		}
	}
	return false
}

// knownFinish says whether a protocol's finish reason has an outcome in the harness.
func knownFinish(protocol, reason string) bool {
	if protocol == "anthropic" {
		switch reason {
		case "end_turn", "stop_sequence", "max_tokens", "tool_use":
			return true
		}
		return false
	}
	switch reason {
	case "stop", "length", "tool_calls", "function_call":
		return true
	}
	return false
}

// wireHintMs reads an error response's Retry-After as RFC 9110 and the providers' extension say:
// retry-after-ms first, a positive decimal count of milliseconds; else Retry-After, whole
// delay-seconds or an HTTP-date counted from when the response went out. Anything else (a
// fraction of a second, another date form, a past date, a word, a number beyond float range) is no
// hint: 0.
func wireHintMs(e WireExchange) float64 {
	if ms, err := strconv.ParseFloat(strings.TrimSpace(e.RetryAfterMs), 64); err == nil && ms > 0 && !math.IsInf(ms, 0) {
		return ms
	}
	v := strings.TrimSpace(e.RetryAfter)
	if v == "" {
		return 0
	}
	if strings.Trim(v, "0123456789") == "" {
		seconds, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsInf(seconds*1000, 0) {
			return 0
		}
		return seconds * 1000
	}
	at, err := http.ParseTime(v)
	if err != nil {
		return 0
	}
	if ms := float64(at.Sub(e.HeadAt)) / float64(time.Millisecond); ms > 0 {
		return ms
	}
	return 0
}

func checkWireMappedFaithfully(x *index, v *violations) {
	trace := &x.run.Trace
	if len(trace.Wire) == 0 {
		return
	}
	byRequest := make(map[int]*WireExchange, len(trace.Wire))
	for i := range trace.Wire {
		byRequest[trace.Wire[i].Request] = &trace.Wire[i]
	}
	for i := range trace.Wire {
		e := &trace.Wire[i]
		if e.GaveUp && e.Request < len(trace.Requests) {
			if took := e.GaveUpAtMs - trace.Requests[e.Request].StartMs; took != e.TimeoutMs {
				v.add(0, e.GaveUpAtMs, "request %d: the adapter hung up after %d ms, not at its %d ms deadline", e.Request+1, took, e.TimeoutMs)
			}
		}
		if e.OutwaitedMs > 0 {
			v.add(0, -1, "request %d: the adapter sat through %d ms of silence, past its %d ms deadline", e.Request+1, e.OutwaitedMs, e.TimeoutMs)
		}
		for id, sent := range e.SentArguments {
			if !jsonObject(sent) {
				v.add(0, -1, "request %d sent call %s (streamed with no arguments) back with arguments %q, not a JSON object", e.Request+1, id, sent)
			}
		}
	}
	for _, ev := range x.run.Log {
		var recorded *harness.Failure
		var turn, step int
		switch d := ev.Data.(type) {
		case harness.LlmRetry:
			recorded, turn, step = &d.Failure, d.Turn, d.Step
		case harness.TurnEnd:
			if d.Reason.Kind != harness.EndError || d.Reason.Error == nil || x.refusedIn(d.Turn, 0) {
				continue // a refused append ends a turn in error too, with no request to blame
			}
			recorded, turn = d.Reason.Error, d.Turn
		case harness.ToolCall:
			checkEmptyArguments(trace, ev, d, v)
			continue
		default:
			continue
		}
		request := wireRequestEnded(trace, turn, step, ev.Time, ev.Seq)
		e := byRequest[request]
		if request < 0 || e == nil || e.Cancelled {
			continue
		}
		if what := unfaithfulToTheWire(*recorded, *e); what != "" {
			v.add(ev.Seq, ev.Time, "request %d (%s): %s", request+1, e.Protocol, what)
		}
	}
}

// wireRequestEnded is the last request of the turn (and step, unless 0) that ended at atMs before
// the event seq: the request whose failure the event records (-1: none).
func wireRequestEnded(trace *Trace, turn, step int, atMs, seq int64) int {
	for i := len(trace.Requests) - 1; i >= 0; i-- {
		r := &trace.Requests[i]
		if r.Turn == turn && (step == 0 || r.Step == step) && r.EndMs == atMs && r.EndSeq < seq {
			return i
		}
	}
	return -1
}

// unfaithfulToTheWire says how recorded differs from what the exchange's bytes mean, or "".
func unfaithfulToTheWire(recorded harness.Failure, e WireExchange) string {
	want := expectWire(e)
	switch {
	case !want.failed:
		return "the wire sent a whole answer, but the harness recorded " + recorded.Code + ": " + recorded.Message
	case recorded.Code != want.code:
		return want.reason + " is " + want.code + ", but the harness recorded " + recorded.Code
	case recorded.Status != want.status:
		return want.reason + " keeps status " + strconv.Itoa(want.status) + ", but the harness recorded " + strconv.Itoa(recorded.Status)
	case recorded.ProviderRetryAfterMs != want.hintMs:
		return want.reason + ": retry-after-ms " + strconv.Quote(e.RetryAfterMs) + ", Retry-After " + strconv.Quote(e.RetryAfter) +
			" is a hint of " + strconv.FormatFloat(want.hintMs, 'f', -1, 64) + " ms, but the harness recorded " + strconv.FormatFloat(recorded.ProviderRetryAfterMs, 'f', -1, 64)
	case want.namesURL && !strings.Contains(recorded.Message, e.URL):
		return want.reason + ": the message does not name " + e.URL + ": " + recorded.Message
	}
	return ""
}

// checkEmptyArguments holds a tool call the wire sent with no arguments: the harness got an
// empty object.
func checkEmptyArguments(trace *Trace, ev harness.Event, call harness.ToolCall, v *violations) {
	for i := range trace.Wire {
		e := &trace.Wire[i]
		if e.Request >= len(trace.Requests) || trace.Requests[e.Request].Turn != call.Turn || trace.Requests[e.Request].Step != call.Step {
			continue
		}
		for _, id := range e.EmptyArguments {
			if id == call.CallID && !jsonObject(call.Arguments) {
				v.add(ev.Seq, ev.Time, "call %s was streamed with no arguments, and the harness got %q, not a JSON object", id, call.Arguments)
			}
		}
	}
}

// jsonObject says whether s is a JSON object.
func jsonObject(s string) bool {
	var object map[string]json.RawMessage
	return json.Unmarshal([]byte(s), &object) == nil && object != nil
}
