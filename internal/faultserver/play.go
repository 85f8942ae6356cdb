package faultserver

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
)

// protocol writes one wire format.
type protocol interface {
	// errorResponse writes a whole error response with its status.
	errorResponse(w http.ResponseWriter, status int, message, errType string)
	// start begins an SSE answer; text, toolCall and finish write its events; inStreamError
	// writes a failure event; malformed a broken one.
	start(send func(string))
	text(send func(string), i int, s string)
	toolCall(send func(string), i int, id, name, args string)
	finish(send func(string), f harness.Finish, blocks int)
	inStreamError(send func(string), errType, message string)
	malformed(send func(string))
	// errType names a failure code in the protocol's error vocabulary.
	errType(code string) string
}

// maxStall bounds a stall that waits for the client to give up.
const maxStall = time.Minute

// toolArguments is what a planned call carries, as in the simulator: its id and its behaviour.
type toolArguments struct {
	CallID  string `json:"callId"`
	Request int    `json:"request"`
	faults.Call
}

// play serves one step: a failure before any chunk as an HTTP error response, otherwise an SSE
// stream of the chunks, then the failure (in-stream, or a cut connection for TRANSPORT), or the
// tool calls and the finish.
func play(s *Server, w http.ResponseWriter, r *http.Request, proto protocol, step Step, index int) {
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 8<<20)) // read first: then a client's going is seen
	wait := func(d time.Duration) bool {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-r.Context().Done():
			return false
		case <-t.C:
			return true
		}
	}
	delay := func(ms int64) bool {
		return ms <= 0 || wait(time.Duration(float64(ms)*s.cfg.Scale*float64(time.Millisecond)))
	}
	if !delay(step.StallMs) {
		return
	}
	a := step.Answer
	// A timeout with no status is the client's own deadline: where the failure would come, the
	// server says nothing more until the client gives up (or maxStall passes).
	clientTimeout := a.Fail != nil && codeOf(*a.Fail) == harness.CodeTimeout && a.Fail.Status == 0
	if clientTimeout && a.Chunks == 0 {
		wait(maxStall)
		return
	}
	if a.Fail != nil && a.Chunks == 0 && a.Fail.Code != harness.CodeTransport && a.Fail.Code != harness.CodeEmptyResponse {
		if !delay(a.ChunkDelayMs) {
			return
		}
		status := statusOf(*a.Fail)
		writeRetryAfter(w.Header(), a.Fail.RetryAfterMs, step.RetryAfterForm, s.cfg.Now())
		w.Header().Set("x-request-id", fmt.Sprintf("req-%d", index+1))
		w.Header().Set("request-id", fmt.Sprintf("req-%d", index+1))
		proto.errorResponse(w, status, a.Fail.Message, proto.errType(codeOf(*a.Fail)))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(block string) {
		_, _ = io.WriteString(w, block+"\n\n")
		if flusher != nil {
			flusher.Flush()
		}
	}
	proto.start(send)
	for i := 0; i < a.Chunks; i++ {
		if !delay(a.ChunkDelayMs) {
			return
		}
		proto.text(send, i, fmt.Sprintf("part %d ", i+1))
	}
	if step.Malformed {
		proto.malformed(send)
		return
	}
	if a.Fail != nil {
		if !delay(a.ChunkDelayMs) {
			return
		}
		switch {
		case clientTimeout:
			wait(maxStall)
		case codeOf(*a.Fail) == harness.CodeTransport:
			cut(w)
		case codeOf(*a.Fail) == harness.CodeEmptyResponse:
			proto.finish(send, harness.FinishCompleted, 0)
		default:
			proto.inStreamError(send, proto.errType(codeOf(*a.Fail)), a.Fail.Message)
		}
		return
	}
	blocks := 0
	if a.Chunks > 0 {
		blocks = 1
	}
	for j, c := range a.Calls {
		id := fmt.Sprintf("call-%d-%d", index+1, j+1)
		if a.CallIDsPerAnswer {
			id = fmt.Sprintf("call-%d", j+1) // call-id-reuse: unique in the answer only
		}
		args, err := json.Marshal(toolArguments{CallID: id, Request: index + 1, Call: c})
		if err != nil {
			panic("faultserver: invariant: a plan call encodes: " + err.Error())
		}
		proto.toolCall(send, blocks+j, id, c.Name, string(args))
	}
	if a.Chunks == 0 && len(a.Calls) == 0 && !delay(a.ChunkDelayMs) {
		return // an empty answer takes its time, then finishes with nothing in it
	}
	finish := a.Finish
	if finish == "" {
		finish = harness.FinishCompleted
	}
	proto.finish(send, finish, blocks+len(a.Calls))
}

// codeOf is the failure's code; a plain error (no Failure in the simulator) is UNKNOWN.
func codeOf(f faults.Fail) string {
	if f.Plain {
		return harness.CodeUnknown
	}
	return f.Code
}

// statusOf is the HTTP status a failure is sent with: its own when it has one.
func statusOf(f faults.Fail) int {
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

// writeRetryAfter sends a positive, finite hint in the step's form.
func writeRetryAfter(h http.Header, ms float64, form string, now time.Time) {
	if !(ms > 0) || math.IsInf(ms, 0) {
		return
	}
	switch form {
	case FormSeconds:
		h.Set("Retry-After", strconv.FormatInt(int64(math.Ceil(ms/1000)), 10))
	case FormDate:
		h.Set("Retry-After", now.Add(time.Duration(ms*float64(time.Millisecond))).UTC().Format(http.TimeFormat))
	default:
		h.Set("retry-after-ms", strconv.FormatFloat(ms, 'f', -1, 64))
	}
}

// cut closes the connection mid-answer, without the chunked body's end: a cut stream.
func cut(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
		}
	}
}
