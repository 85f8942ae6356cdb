package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/internal/wireplay"
	"github.com/turnsim/turnsim/properties"
)

// wireKey is the context key under which a request carries its exchange to the transport.
type wireKey struct{}

// wireTransport is the wire: an http.RoundTripper that answers each request with its planned
// answer's bytes, found through the request's context.
type wireTransport struct{}

// RoundTrip plays the request's answer: after its opening delay, a refused connection, a silence
// until the client gives up, or a response whose body's reads wait through the world's runtime.
func (wireTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ex, _ := req.Context().Value(wireKey{}).(*wireExchange)
	if ex == nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, errors.New("sim: a request reached the wire without its planned answer")
	}
	return ex.roundTrip(req)
}

// wireExchange is one request on the wire: the answer (its planned stream, for the calls it
// numbers and records as the model does), its place in the trace's wire records, and the
// context the harness gave the request.
type wireExchange struct {
	route    *wireRoute
	stream   planStream
	exchange int
	parent   context.Context
	request  harness.Request
}

// update changes the exchange's record and its request's, under the tracer's lock.
func (ex *wireExchange) update(change func(e *properties.WireExchange, r *properties.Request)) {
	t := ex.stream.provider.tracer
	t.mu.Lock()
	change(&t.trace.Wire[ex.exchange], &t.trace.Requests[ex.stream.index])
	t.mu.Unlock()
}

// strike counts the answer's own fault and, if not empty, the wire's.
func (ex *wireExchange) strike(wireFault string) {
	t := ex.stream.provider.tracer
	if f := ex.stream.answer.Fault; f != faults.CallIDReuse {
		t.strike(f)
	}
	t.strike(wireFault)
}

func (ex *wireExchange) roundTrip(req *http.Request) (*http.Response, error) {
	ex.readRequest(req)
	ctx := req.Context()
	answer := ex.stream.answer
	reply := wireplay.New(answer, ex.call)
	what, delayMs := reply.Opening()
	if err := ex.wait(ms(delayMs), ctx); err != nil {
		return nil, err
	}
	switch what {
	case wireplay.Refuse:
		ex.strike(faults.WireCut)
		ex.update(func(e *properties.WireExchange, r *properties.Request) { e.Refused = true })
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	case wireplay.Stall:
		ex.strike(faults.WireStall)
		if err := ex.silence(ctx); err != nil {
			return nil, err
		}
		return nil, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	}
	now := ex.stream.provider.tracer.now()
	head := reply.Head(now, ex.stream.index+1)
	resp := &http.Response{
		Status: strconv.Itoa(head.Status) + " " + http.StatusText(head.Status), StatusCode: head.Status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: head.Header, Request: req, ContentLength: -1,
	}
	if head.Body == nil {
		resp.Body = &wireBody{ex: ex, reply: reply, ctx: ctx}
		return resp, nil
	}
	errType, code, message := errorObject(head.Body)
	ex.update(func(e *properties.WireExchange, r *properties.Request) {
		e.Status, e.HeadAt = head.Status, now
		e.RetryAfterMs, e.RetryAfter = head.Header.Get("Retry-After-Ms"), head.Header.Get("Retry-After")
		e.ErrorType, e.ErrorCode, e.ErrorMessage = errType, code, message
		r.FailStatus, r.RetryAfterMs = head.Status, head.HintMs
	})
	ex.strike(retryAfterFault(answer.Wire.RetryAfter, head.Header))
	resp.ContentLength = int64(len(head.Body))
	resp.Body = io.NopCloser(bytes.NewReader(head.Body))
	return resp, nil
}

// retryAfterFault is the wire fault of the Retry-After form a head went out with ("" if it
// carried none).
func retryAfterFault(form string, h http.Header) string {
	if h.Get("Retry-After-Ms") == "" && h.Get("Retry-After") == "" {
		return ""
	}
	switch form {
	case faults.RetryAfterSeconds:
		return faults.WireRetryAfterSeconds
	case faults.RetryAfterDate, faults.RetryAfterRFC850, faults.RetryAfterAsctime:
		return faults.WireRetryAfterDate
	case faults.RetryAfterJunk:
		return faults.WireRetryAfterJunk
	}
	return faults.WireRetryAfterMs
}

// wait waits d through the world's runtime, ended by ctx (the request's). An end by ctx is
// recorded: a cancel of the harness's, or the client giving up on its own (its deadline).
func (ex *wireExchange) wait(d time.Duration, ctx context.Context) error {
	if d <= 0 {
		return nil
	}
	if err := ex.stream.provider.runtime.Sleep(d, ctx); err != nil {
		ex.interrupted()
		return err
	}
	return nil
}

// silence says nothing until the client gives up, or for wireStallMax: then the world gives up
// itself (and returns nil), an adapter having sat through a silence past its own deadline.
func (ex *wireExchange) silence(ctx context.Context) error {
	start := ex.stream.provider.tracer.nowMs()
	if err := ex.wait(wireStallMax, ctx); err != nil {
		return err
	}
	waited := ex.stream.provider.tracer.nowMs() - start
	ex.update(func(e *properties.WireExchange, r *properties.Request) { e.OutwaitedMs = waited })
	return nil
}

// interrupted records the request's end by its context: the harness cancelled it, or, its own
// context live, the client gave up by itself, which fails the request (TIMEOUT, no status or
// hint) whatever was still to come.
func (ex *wireExchange) interrupted() {
	now := ex.stream.provider.tracer.nowMs()
	cancelled := ex.parent.Err() != nil
	ex.update(func(e *properties.WireExchange, r *properties.Request) {
		if e.Cancelled || e.GaveUp {
			return
		}
		if cancelled {
			e.Cancelled = true
			return
		}
		e.GaveUp, e.GaveUpAtMs = true, now
		r.Failed, r.FailCode, r.FailStatus, r.RetryAfterMs = true, harness.CodeTimeout, 0, 0
	})
}

// call numbers, names and records the answer's j-th tool call as the model does (toolCallChunk),
// and sends a call to an unknown tool with no arguments when the answer says so.
func (ex *wireExchange) call(j int) (id, name, arguments string) {
	chunk := ex.stream.toolCallChunk(j)
	if w := ex.stream.answer.Wire; w.EmptyArguments && ex.stream.answer.Calls[j].Name == faults.UnknownTool {
		ex.stream.provider.tracer.strike(faults.WireEmptyArguments)
		ex.route.emptyIDs = append(ex.route.emptyIDs, chunk.CallID)
		ex.update(func(e *properties.WireExchange, r *properties.Request) {
			e.EmptyArguments = append(e.EmptyArguments, chunk.CallID)
		})
		return chunk.CallID, chunk.Name, ""
	}
	return chunk.CallID, chunk.Name, chunk.Arguments
}

// readRequest records where the request went and, when its conversation carries a call the
// wire sent with no arguments, what arguments the request sends back for it. It closes the
// request's body, as a transport must.
func (ex *wireExchange) readRequest(req *http.Request) {
	url := req.URL.String()
	var sent map[string]string
	if ex.carriesEmptyCall() && req.Body != nil {
		body, err := io.ReadAll(io.LimitReader(req.Body, 64<<20))
		if err != nil {
			panic("sim: invariant: an in-memory request body reads: " + err.Error())
		}
		sent = sentArguments(body, ex.route.emptyIDs)
	}
	if req.Body != nil {
		_ = req.Body.Close()
	}
	ex.update(func(e *properties.WireExchange, r *properties.Request) { e.URL, e.SentArguments = url, sent })
}

// carriesEmptyCall reports whether the request's conversation holds a call sent with none.
func (ex *wireExchange) carriesEmptyCall() bool {
	if len(ex.route.emptyIDs) == 0 {
		return false
	}
	for _, m := range ex.request.Messages {
		for _, b := range m.Blocks {
			if b.Type == harness.BlockToolCall && slices.Contains(ex.route.emptyIDs, b.CallID) {
				return true
			}
		}
	}
	return false
}

// sentArguments reads, from a request body of either API, the arguments it carries for the calls
// named by ids: OpenAI's function arguments (a string), Anthropic's tool_use input (a value).
func sentArguments(body []byte, ids []string) map[string]string {
	var request struct {
		Messages []struct {
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &request) != nil {
		return map[string]string{"(the request body)": string(body)}
	}
	sent := map[string]string{}
	for _, m := range request.Messages {
		for _, c := range m.ToolCalls {
			if slices.Contains(ids, c.ID) {
				sent[c.ID] = c.Function.Arguments
			}
		}
		var blocks []struct {
			Type  string          `json:"type"`
			ID    string          `json:"id"`
			Input json.RawMessage `json:"input"`
		}
		if json.Unmarshal(m.Content, &blocks) == nil {
			for _, b := range blocks {
				if b.Type == "tool_use" && slices.Contains(ids, b.ID) {
					sent[b.ID] = string(b.Input)
				}
			}
		}
	}
	return sent
}

// errorObject reads an error body's or event's error object: {"error":{type, code, message}},
// as both APIs nest it (Anthropic's code is always empty).
func errorObject(data []byte) (errType, code, message string) {
	var body struct {
		Error struct {
			Type    *string `json:"type"`
			Code    any     `json:"code"`
			Message string  `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &body) != nil {
		return "", "", ""
	}
	if body.Error.Type != nil {
		errType = *body.Error.Type
	}
	code, _ = body.Error.Code.(string)
	return errType, code, body.Error.Message
}

// wireBody is a streamed response's body: each read past the bytes at hand waits for the next
// frame's delay through the world's runtime, records what the frame carries, and hands it out.
type wireBody struct {
	ex      *wireExchange
	reply   *wireplay.Reply
	ctx     context.Context
	pending []byte
	err     error
}

func (b *wireBody) Read(p []byte) (int, error) {
	for len(b.pending) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		b.err = b.nextFrame()
	}
	n := copy(p, b.pending)
	b.pending = b.pending[n:]
	return n, nil
}

// nextFrame waits for the next frame and takes it, or says how the body ends.
func (b *wireBody) nextFrame() error {
	ex := b.ex
	frame, ok := b.reply.Next()
	if !ok {
		return io.EOF
	}
	if err := ex.wait(ms(frame.DelayMs), b.ctx); err != nil {
		return err
	}
	answer := ex.stream.answer
	switch frame.Kind {
	case wireplay.FrameStart:
		now := ex.stream.provider.tracer.now()
		ex.update(func(e *properties.WireExchange, r *properties.Request) {
			e.Status, e.HeadAt = http.StatusOK, now
			r.FailStatus, r.RetryAfterMs = 0, 0 // a failure in the stream carries neither
		})
	case wireplay.FrameText, wireplay.FrameCall:
		if frame.Kind == wireplay.FrameText && frame.Index == 0 && answer.Fault == faults.SlowStream {
			ex.stream.provider.tracer.strike(answer.Fault)
		}
		ex.update(func(e *properties.WireExchange, r *properties.Request) { e.Content = true })
	case wireplay.FrameFinish:
		reason := finishReasonOf(frame.Data)
		wireFault := ""
		if answer.Wire.FinishReason != "" {
			wireFault = faults.WireFinishReason
		}
		ex.strike(wireFault)
		ex.update(func(e *properties.WireExchange, r *properties.Request) { e.FinishReason = reason })
	case wireplay.FrameError:
		errType, code, message := errorObject(bytes.TrimSpace(eventData(frame.Data)))
		ex.strike(faults.WireStreamError)
		ex.update(func(e *properties.WireExchange, r *properties.Request) {
			e.InStream, e.ErrorType, e.ErrorCode, e.ErrorMessage = true, errType, code, message
		})
	case wireplay.FrameMalformed:
		ex.strike(faults.WireMalformedEvent)
		ex.update(func(e *properties.WireExchange, r *properties.Request) { e.Malformed = true })
	case wireplay.FrameCut:
		ex.strike(faults.WireCut)
		ex.update(func(e *properties.WireExchange, r *properties.Request) { e.Cut = true })
		return io.ErrUnexpectedEOF // what net/http's client reads of a body cut short
	case wireplay.FrameStall:
		ex.strike(faults.WireStall)
		if err := ex.silence(b.ctx); err != nil {
			return err
		}
		ex.update(func(e *properties.WireExchange, r *properties.Request) { e.Cut = true })
		return io.ErrUnexpectedEOF
	}
	b.pending = frame.Data
	return nil
}

// Close ends the reading: the adapter is done with the response.
func (b *wireBody) Close() error {
	if b.err == nil {
		b.err = errors.New("sim: read of a closed wire body")
	}
	return nil
}

// eventData is the data of an SSE event: what follows "data: " up to its line's end.
func eventData(event []byte) []byte {
	_, data, _ := bytes.Cut(event, []byte("data: "))
	data, _, _ = bytes.Cut(data, []byte("\n"))
	return data
}

// finishReasonOf reads the finish reason a finish frame sends: OpenAI's finish_reason or
// Anthropic's stop_reason.
func finishReasonOf(frame []byte) string {
	for _, key := range [][]byte{[]byte(`"finish_reason":"`), []byte(`"stop_reason":"`)} {
		if _, rest, ok := bytes.Cut(frame, key); ok {
			reason, _, _ := bytes.Cut(rest, []byte(`"`))
			return string(reason)
		}
	}
	return ""
}

// now is the runtime's clock, exactly: an HTTP-date's hint is measured from it, as the
// adapter, which reads the same clock at the same instant, measures it.
func (t *tracer) now() time.Time {
	if t.scheduler != nil {
		return t.scheduler.Now()
	}
	return t.runtime.Clock().Now()
}
