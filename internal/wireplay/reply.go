// Package wireplay plays one planned answer (a faults.Answer, with its Wire form) as the bytes of
// a provider's streaming API: OpenAI's Chat Completions or Anthropic's Messages, as server-sent
// events. It decides what goes out and in which order (a refused connection, a silence, an error
// response, or a head and the stream's frames, each after its delay), and writes the bytes; the
// caller does the waiting and the sending. Two callers share it: the loopback fault server
// (internal/faultserver, real HTTP on real time) and the simulator's in-memory wire (sim, on the
// scheduler's virtual time), so that both put the same bytes on the wire for the same answer.
package wireplay

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
)

// What comes first, after the reply's first delay.
const (
	// Respond sends a head (Head): an error response, or the 200 of an event stream.
	Respond = iota
	// Refuse sends nothing: the connection is refused (or reset) before any response.
	Refuse
	// Stall sends nothing until the client gives up.
	Stall
)

// Frame kinds: what a frame of the stream carries.
const (
	FrameStart = iota
	FrameText
	FrameCall
	FrameFinish
	FrameError
	FrameMalformed
	// FrameCut and FrameStall carry no bytes: the body is cut there, or goes silent.
	FrameCut
	FrameStall
)

// CallFunc gives the id, the tool's name and the arguments of the answer's j-th tool call: the
// caller decides them (the simulator numbers them and records them when the call is sent).
type CallFunc func(j int) (id, name, arguments string)

// Reply is one answer being played.
type Reply struct {
	proto  protocol
	answer *faults.Answer
	wire   faults.Wire
	calls  CallFunc
	steps  []step
	next   int
	buffer []byte
}

// step is one frame to come: its kind, its index (a text's or a call's), its delay.
type step struct {
	kind, index int
	delayMs     int64
}

// New plays a, whose Wire form says the protocol (none: OpenAI, the form's defaults); calls
// gives its tool calls.
func New(a *faults.Answer, calls CallFunc) *Reply {
	r := &Reply{answer: a, calls: calls}
	if a.Wire != nil {
		r.wire = *a.Wire
	}
	r.proto = protocolOf(r.wire.Protocol)
	r.plan()
	return r
}

// failure is the answer's failure as the wire sends it: nil when the answer finishes (Malformed
// and FinishReason send a finish whatever Fail says the harness must make of it).
func (r *Reply) failure() *faults.Fail {
	if r.wire.Malformed || r.wire.FinishReason != "" {
		return nil
	}
	return r.answer.Fail
}

// codeOf is the failure's code as the wire knows it: a plain error (the model's) is UNKNOWN.
func codeOf(f *faults.Fail) string {
	if f.Plain {
		return harness.CodeUnknown
	}
	return f.Code
}

// How a failure goes out on the wire (ending): as an error (a response, or an event in the
// stream), a cut connection, a silence, or a stream that finishes with nothing in it.
const (
	endError = iota
	endCut
	endStall
	endEmpty
)

// frameOfEnding is the stream's last frame for each ending (an empty stream simply finishes).
var frameOfEnding = [...]int{endError: FrameError, endCut: FrameCut, endStall: FrameStall, endEmpty: FrameFinish}

// ending is how failure f goes out: a cut or a silence when the wire form asks for one, or when
// the code is one that only a connection can say (TRANSPORT; a TIMEOUT with no status, unless
// it is an event in the stream).
func (r *Reply) ending(f *faults.Fail) int {
	switch code := codeOf(f); {
	case r.wire.Cut || (code == harness.CodeTransport && !r.wire.Stall):
		return endCut
	case r.wire.Stall || (code == harness.CodeTimeout && f.Status == 0 && !r.wire.InStream):
		return endStall
	case code == harness.CodeEmptyResponse:
		return endEmpty
	}
	return endError
}

// Opening is what comes first (Respond, Refuse or Stall) and after how long.
func (r *Reply) Opening() (what int, delayMs int64) {
	a, f := r.answer, r.failure()
	if f == nil || a.Chunks > 0 {
		return Respond, 0
	}
	switch r.ending(f) {
	case endCut:
		return Refuse, a.ChunkDelayMs
	case endStall:
		return Stall, a.ChunkDelayMs
	case endEmpty:
		return Respond, 0
	}
	if r.wire.InStream {
		return Respond, 0
	}
	return Respond, a.ChunkDelayMs
}

// Head is a response's head and, for an error response, its whole body.
type Head struct {
	Status int
	Header http.Header
	// Body is an error response's body; nil for an event stream, whose frames follow.
	Body []byte
	// HintMs is the Retry-After the head carries, as a reader of the headers must take it
	// (0: none usable): the simulator's record of what went out.
	HintMs float64
}

// Head is the response's head, its Retry-After dates measured from now; request numbers the
// request from 1 (the request id).
func (r *Reply) Head(now time.Time, request int) Head {
	h := Head{Header: http.Header{}}
	id := "req-" + strconv.Itoa(request)
	h.Header.Set("X-Request-Id", id)
	h.Header.Set("Request-Id", id)
	f := r.failure()
	if f == nil || r.answer.Chunks > 0 || r.wire.InStream || codeOf(f) == harness.CodeEmptyResponse {
		h.Status = http.StatusOK
		h.Header.Set("Content-Type", "text/event-stream")
		h.Header.Set("Cache-Control", "no-cache")
		return h
	}
	h.Status = statusOf(f)
	h.HintMs = writeRetryAfter(h.Header, f.RetryAfterMs, r.wire.RetryAfter, now)
	h.Header.Set("Content-Type", "application/json")
	errType, message := r.errorOf(f)
	h.Body = r.proto.errorBody(nil, errType, r.wire.ByCode, message)
	return h
}

// errorOf is the error object's type and message for f: the wire form's type, else the
// protocol's name for the code (a context overflow said in Anthropic's words).
func (r *Reply) errorOf(f *faults.Fail) (errType, message string) {
	code, message := codeOf(f), f.Message
	if r.wire.ErrorType != "" {
		return r.wire.ErrorType, message
	}
	if code == harness.CodeContextWindowExceeded && r.wire.Protocol == faults.ProtocolAnthropic && !strings.HasPrefix(message, "prompt is too long") {
		message = "prompt is too long: " + message
	}
	return r.proto.errType(code), message
}

// statusOf is the status a failure is sent with: its own when it has one.
func statusOf(f *faults.Fail) int {
	if f.Status >= 400 && f.Status <= 599 && !f.Plain {
		return f.Status
	}
	switch codeOf(f) {
	case harness.CodeRateLimit:
		return http.StatusTooManyRequests
	case harness.CodeServer:
		return http.StatusInternalServerError
	case harness.CodeTimeout:
		return http.StatusRequestTimeout
	}
	return http.StatusBadRequest
}

// plan lays out the stream's frames: the start, the text chunks, then what ends the answer.
func (r *Reply) plan() {
	a, f := r.answer, r.failure()
	r.steps = append(r.steps, step{kind: FrameStart})
	for i := range a.Chunks {
		r.steps = append(r.steps, step{kind: FrameText, index: i, delayMs: a.ChunkDelayMs})
	}
	switch {
	case r.wire.Malformed:
		r.steps = append(r.steps, step{kind: FrameMalformed, delayMs: a.ChunkDelayMs}, step{kind: FrameFinish})
	case f != nil:
		r.steps = append(r.steps, step{kind: frameOfEnding[r.ending(f)], delayMs: a.ChunkDelayMs})
	default:
		for j := range a.Calls {
			r.steps = append(r.steps, step{kind: FrameCall, index: j})
		}
		delay := int64(0)
		if a.Chunks == 0 && len(a.Calls) == 0 {
			delay = a.ChunkDelayMs // an empty answer takes its time, then finishes with nothing in it
		}
		r.steps = append(r.steps, step{kind: FrameFinish, delayMs: delay})
	}
}

// Frame is one frame of the stream: what it carries, how long to wait before sending it, and
// its bytes (none for FrameCut and FrameStall). Index is a text's or a call's.
type Frame struct {
	Kind, Index int
	DelayMs     int64
	Data        []byte
}

// Next is the stream's next frame; false after the last. A frame's Data is good until the next
// call.
func (r *Reply) Next() (Frame, bool) {
	if r.next >= len(r.steps) {
		return Frame{}, false
	}
	s := r.steps[r.next]
	r.next++
	b := r.buffer[:0]
	switch s.kind {
	case FrameStart:
		b = r.proto.start(b)
	case FrameText:
		b = r.proto.text(b, s.index, PartText(s.index+1))
	case FrameCall:
		id, name, arguments := r.calls(s.index)
		b = r.proto.toolCall(b, r.blocks()+s.index, id, name, arguments)
	case FrameFinish:
		b = r.proto.finish(b, r.finishReason(), r.blocks()+len(r.answer.Calls))
	case FrameError:
		errType, message := r.errorOf(r.answer.Fail)
		b = r.proto.streamError(b, errType, r.wire.ByCode, message)
	case FrameMalformed:
		b = r.proto.malformed(b)
	}
	r.buffer = b
	return Frame{Kind: s.kind, Index: s.index, DelayMs: s.delayMs, Data: b}, true
}

// blocks is how many content blocks precede the tool calls: the text block, if any.
func (r *Reply) blocks() int {
	if r.answer.Chunks > 0 {
		return 1
	}
	return 0
}

// finishReason is the API's reason for the answer's finish: the wire form's own, or Finish's.
func (r *Reply) finishReason() string {
	if r.wire.FinishReason != "" {
		return r.wire.FinishReason
	}
	finish := r.answer.Finish
	if finish == "" || r.answer.Fail != nil {
		finish = harness.FinishCompleted
	}
	return r.proto.reason(finish)
}

// PartText is the text of an answer's n-th text chunk (from 1), as the simulator's model sends
// it: "part n ".
func PartText(n int) string { return "part " + strconv.Itoa(n) + " " }

// writeRetryAfter writes a failure's hint in form, its dates measured from now, and returns the
// hint a reader must take from what it wrote (0: none usable). A hint that is not positive is
// sent as it is in retry-after-ms (a reader ignores it); none at all when it is zero.
func writeRetryAfter(h http.Header, ms float64, form string, now time.Time) float64 {
	if ms == 0 || math.IsNaN(ms) || math.IsInf(ms, 0) {
		return 0
	}
	if !(ms > 0) {
		h.Set("Retry-After-Ms", strconv.FormatFloat(ms, 'f', -1, 64))
		return 0
	}
	switch form {
	case faults.RetryAfterSeconds:
		seconds := math.Ceil(ms / 1000)
		h.Set("Retry-After", strconv.FormatFloat(seconds, 'f', -1, 64))
		return seconds * 1000
	case faults.RetryAfterDate, faults.RetryAfterRFC850, faults.RetryAfterAsctime:
		// The date is in whole seconds: the hint's end rounded up, so that it is never earlier.
		at := now.Add(time.Duration(math.Ceil(ms)) * time.Millisecond).UTC()
		if rounded := at.Truncate(time.Second); rounded.Before(at) {
			at = rounded.Add(time.Second)
		}
		layout := map[string]string{faults.RetryAfterDate: http.TimeFormat, faults.RetryAfterRFC850: "Monday, 02-Jan-06 15:04:05 GMT", faults.RetryAfterAsctime: time.ANSIC}[form]
		h.Set("Retry-After", at.Format(layout))
		return float64(at.Sub(now)) / float64(time.Millisecond)
	case faults.RetryAfterJunk:
		junk := []string{"soon", "1.5", now.Add(time.Duration(ms) * time.Millisecond).UTC().Format(time.RFC3339), now.Add(-time.Minute).UTC().Format(http.TimeFormat), "-3", strings.Repeat("9", 400)}
		h.Set("Retry-After", junk[int(ms)%len(junk)])
		return 0
	case faults.RetryAfterBoth:
		h.Set("Retry-After-Ms", strconv.FormatFloat(ms, 'f', -1, 64))
		h.Set("Retry-After", strconv.FormatFloat(math.Ceil(ms/1000)+7, 'f', -1, 64))
		return ms
	}
	h.Set("Retry-After-Ms", strconv.FormatFloat(ms, 'f', -1, 64))
	return ms
}
