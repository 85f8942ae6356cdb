package faultserver

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/internal/wireplay"
)

// maxStall bounds a silence that waits for the client to give up.
const maxStall = time.Minute

// envelope is what a planned call carries when it says nothing of its arguments: turnsim's, as
// in the simulator, its id and its behaviour.
type envelope struct {
	CallID  string `json:"callId"`
	Request int    `json:"request"`
	faults.Call
}

// play serves the index-th answer (from 0) in the protocol the request's path chose: after its
// opening delay, a refused connection, a silence, an error response, or the event stream's
// frames, each after its delay.
func play(s *Server, w http.ResponseWriter, r *http.Request, step Step, index int) {
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 8<<20)) // read first: then a client's going is seen
	wait := func(ms int64) bool {
		if ms <= 0 {
			return r.Context().Err() == nil
		}
		return waitFor(r, time.Duration(float64(ms)*s.cfg.Scale*float64(time.Millisecond)))
	}
	reply := wireplay.New(&step.Answer, func(j int) (string, string, string) { return s.call(&step, index, j) })
	what, delayMs := reply.Opening()
	if !wait(delayMs) {
		return
	}
	switch what {
	case wireplay.Refuse:
		cut(w)
		return
	case wireplay.Stall:
		waitFor(r, maxStall)
		return
	}
	head := reply.Head(s.cfg.Now(), index+1)
	for k, v := range head.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(head.Status)
	if head.Body != nil {
		_, _ = w.Write(head.Body)
		return
	}
	flusher, _ := w.(http.Flusher)
	for {
		frame, ok := reply.Next()
		if !ok || !wait(frame.DelayMs) {
			return
		}
		switch frame.Kind {
		case wireplay.FrameCut:
			cut(w)
			return
		case wireplay.FrameStall:
			waitFor(r, maxStall)
			return
		}
		_, _ = w.Write(frame.Data)
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// call is the id, name and arguments of the index-th step's j-th call: its id the call's own
// (Call.ID), else call-<request>-<j> (call-<j> when the answer numbers its calls per answer); its
// arguments the step's own, else the call's (Call.Arguments), else the server's Arguments, else
// turnsim's envelope; none at all for a call to an unknown tool in an answer that sends such
// calls empty.
func (s *Server) call(step *Step, index, j int) (id, name, arguments string) {
	a, c := &step.Answer, step.Calls[j]
	id = "call-" + strconv.Itoa(index+1) + "-" + strconv.Itoa(j+1)
	if a.CallIDsPerAnswer {
		id = "call-" + strconv.Itoa(j+1)
	}
	if c.ID != "" {
		id = c.ID // as a provider delivered it (a schedule derived from a log)
	}
	switch {
	case a.Wire != nil && a.Wire.EmptyArguments && c.Name == faults.UnknownTool:
		arguments = ""
	case j < len(step.Arguments) && step.Arguments[j] != "":
		arguments = step.Arguments[j]
	case c.Arguments != "":
		arguments = c.Arguments // as a provider delivered them, as the simulator sends them
	case s.cfg.Arguments != nil:
		arguments = s.cfg.Arguments(c.Name)
	default:
		c.ID, c.Arguments = "", "" // as delivered, they are no part of the envelope (nor the simulator's)
		encoded, err := json.Marshal(envelope{CallID: id, Request: index + 1, Call: c})
		if err != nil {
			panic("faultserver: invariant: a plan call encodes: " + err.Error())
		}
		arguments = string(encoded)
	}
	return id, c.Name, arguments
}

// waitFor holds the response until the client goes or d passes; it reports whether d passed
// with the client still there.
func waitFor(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.Context().Done():
		return false
	case <-t.C:
		return true
	}
}

// cut closes the connection without ending the response: before a head, a reset; after one, a
// body cut short.
func cut(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
		}
	}
}
