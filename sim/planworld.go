package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
)

// planProvider is the simulated provider of a schedule: it serves the plan's answers in request
// order until the horizon, then answers cleanly, so the liveness phase can settle.
type planProvider struct {
	runtime harness.Runtime
	tracer  *tracer
	plan    *faults.Plan
	served  int
	// userTools, if set, renames planned calls onto the user's tools (see usertools.go).
	userTools *userTools
	// perAnswerHigh is the highest number a call-id-reuse answer has given its calls so far
	// (call-1 … call-perAnswerHigh): a later such answer reuses the ids up to it.
	perAnswerHigh int
	// world is the world the provider serves, for the session log's length now, a request's
	// EndSeq (nil: not known, 0).
	world *world
	// streams is room for the next requests' streams (newStream).
	streams []planStream
	// messages is the last request's record of its conversation, with room to grow
	// (requestMessages).
	messages []properties.RequestMessage
	// llmErrors is room for the next failures' errors (newLlmError).
	llmErrors []harness.LlmError
	// wire is the world's wire to real adapters, made when an answer first goes on it (wire.go).
	wire *wireRoute
}

// streamsBuffered is how many streams newStream makes room for at a time: a schedule of the
// default mix makes about four requests.
const streamsBuffered = 4

// newStream is a new stream, cut from p.streams: one allocation for a few requests instead of
// one each. Streams are never reused; a stream held keeps its neighbours' 48 bytes each alive.
func (p *planProvider) newStream(answer *faults.Answer, index int) *planStream {
	if len(p.streams) == 0 {
		p.streams = make([]planStream, streamsBuffered)
	}
	s := &p.streams[0]
	p.streams = p.streams[1:]
	*s = planStream{provider: p, answer: answer, index: index}
	return s
}

// requestsBuffered is the room the trace's requests start with: growing them from one took
// three allocations for a schedule's usual four requests.
const requestsBuffered = 4

// cleanAnswer is what the provider says once the plan is used up or the horizon has passed.
var cleanAnswer = faults.Answer{Chunks: 1, ChunkDelayMs: 20, Finish: harness.FinishCompleted}

func (p *planProvider) Name() string {
	if p.world != nil {
		return p.world.schedule.providerName()
	}
	return simulatedProviderName
}

// newRequestRecord is the trace's record of request as it is sent, answer to come: what the
// model and the wire both record, before each says whether the answer fails.
func (p *planProvider) newRequestRecord(request harness.Request, answer *faults.Answer) properties.Request {
	return properties.Request{
		Turn: request.Turn, Step: request.Step, Attempt: request.Attempt,
		StartMs: p.tracer.nowMs(), EndMs: -1, Fault: answer.Fault, Messages: p.requestMessages(request.Messages),
	}
}

// recordRequest adds record to the trace's requests and returns its index.
func (p *planProvider) recordRequest(record properties.Request) int {
	p.tracer.mu.Lock()
	defer p.tracer.mu.Unlock()
	if p.tracer.trace.Requests == nil {
		p.tracer.trace.Requests = make([]properties.Request, 0, requestsBuffered)
	}
	p.tracer.trace.Requests = append(p.tracer.trace.Requests, record)
	return len(p.tracer.trace.Requests) - 1
}

func (p *planProvider) Stream(ctx context.Context, request harness.Request) (harness.Stream, error) {
	answer := &cleanAnswer // read only, as the plan's answers are
	if p.served < len(p.plan.Answers) && p.tracer.sinceStartMs() < p.plan.HorizonMs {
		answer = &p.plan.Answers[p.served]
	}
	p.served++
	if answer.Wire != nil && WireRegistered() {
		return p.wireStream(ctx, request, answer)
	}
	record := p.newRequestRecord(request, answer)
	switch {
	case answer.Goexit: // no answer at all: the goroutine ends (Request.Goexit)
	case answer.Fail != nil && answer.Fail.Plain:
		// A plain error: the harness has no code for it, and records its chain of causes.
		record.Failed, record.FailCode, record.FailText = true, harness.CodeUnknown, plainErrorText(answer.Fail.Message)
	case answer.NilStream:
		// Neither a stream nor an error: the harness has no code for it either.
		record.Failed, record.FailCode = true, harness.CodeUnknown
	case answer.Fail != nil:
		record.Failed, record.FailCode, record.RetryAfterMs = true, answer.Fail.Code, answer.Fail.RetryAfterMs
		record.FailStatus = answer.Fail.Status
	case answer.Chunks == 0 && len(answer.Calls) == 0:
		record.Failed, record.FailCode = true, harness.CodeEmptyResponse
	}
	index := p.recordRequest(record)
	stream := p.newStream(answer, index)
	if answer.Goexit && answer.Chunks == 0 {
		if err := stream.sleep(delayBefore(answer, 0), ctx); err != nil {
			stream.ended()
			return nil, err
		}
		stream.goexit() // Stream itself never returns
	}
	if answer.NilStream {
		err := stream.sleep(delayBefore(answer, 0), ctx)
		stream.ended()
		if err != nil {
			return nil, err
		}
		p.tracer.strike(answer.Fault) // a buggy adapter's answer: neither a stream nor an error
		return nil, nil
	}
	return stream, nil
}

// planStream streams one answer: its text chunks, then its failure or its tool calls and finish.
// Coverage comes from here, the world's own record: an answer's fault strikes when the stream
// delivers it (the failure returned, the finish streamed, the first slow chunk, the call to an
// unknown tool), never when the harness reacts to it, and not at all when the request is
// cancelled first.
type planStream struct {
	provider *planProvider
	// answer is the plan's answer (or cleanAnswer): the stream only reads it.
	answer *faults.Answer
	index  int
	next   int
	// cancel is sleep's argument list: its own, so a sleep allocates none.
	cancel [1]context.Context
}

// sleep waits d, ended by ctx. A variadic call through the Runtime interface made a slice for
// ctx on the heap, every chunk; the stream's own array serves instead, for the one sleep at a
// time its one reader makes (no Runtime keeps the list past the call).
func (s *planStream) sleep(d time.Duration, ctx context.Context) error {
	if m := s.provider.tracer.aimer; m != nil {
		m.timerStarted(faults.TimerChunk, d)
	}
	s.cancel[0] = ctx
	err := s.provider.runtime.Sleep(d, s.cancel[:]...)
	s.cancel[0] = nil
	return err
}

func (s *planStream) Next(ctx context.Context) (harness.Chunk, error) {
	chunk, err := s.produce(ctx)
	if err != nil {
		s.ended()
	}
	return chunk, err
}

// ended records the request's end now.
func (s *planStream) ended() {
	t := s.provider.tracer
	now := t.nowMs()
	var seq int64
	if w := s.provider.world; w != nil {
		seq = w.logLen()
	}
	t.mu.Lock()
	t.trace.Requests[s.index].EndMs, t.trace.Requests[s.index].EndSeq = now, seq
	t.mu.Unlock()
}

// goexit carries out the provider-goexit fault: the request ends, the world records the strike,
// and the goroutine calling the provider ends by runtime.Goexit, as t.FailNow in a test's fake
// provider ends it.
func (s *planStream) goexit() {
	s.ended()
	t := s.provider.tracer
	t.mu.Lock()
	t.trace.Requests[s.index].Goexit = true
	t.mu.Unlock()
	t.strike(s.answer.Fault)
	runtime.Goexit()
}

func (s *planStream) produce(ctx context.Context) (harness.Chunk, error) {
	a := s.answer
	if a.IgnoreCancel && a.Fail == nil {
		return s.produceIgnoringCancel()
	}
	i := s.next
	s.next++
	switch {
	case a.Goexit && i < a.Chunks:
		if err := s.sleep(delayBefore(a, i), ctx); err != nil {
			return harness.Chunk{}, err
		}
		return harness.Chunk{Kind: harness.ChunkText, Text: chunkText(a, i)}, nil
	case a.Goexit && i == a.Chunks:
		if err := s.sleep(delayBefore(a, i), ctx); err != nil {
			return harness.Chunk{}, err
		}
		s.goexit() // Next never returns
	case a.Goexit:
		return harness.Chunk{}, io.EOF
	case i < a.Chunks:
		if err := s.sleep(delayBefore(a, i), ctx); err != nil {
			return harness.Chunk{}, err
		}
		if i == 0 && a.Fault == faults.SlowStream {
			s.provider.tracer.strike(a.Fault)
		}
		return harness.Chunk{Kind: harness.ChunkText, Text: chunkText(a, i)}, nil
	case a.Fail != nil && i == a.Chunks:
		if err := s.sleep(delayBefore(a, i), ctx); err != nil {
			return harness.Chunk{}, err
		}
		s.provider.tracer.strike(a.Fault)
		return harness.Chunk{}, s.provider.wrappedFailureError(*a.Fail)
	case a.Fail != nil:
		return harness.Chunk{}, io.EOF
	case i < a.Chunks+len(a.Calls):
		if i < len(a.DelaysMs) { // a call delivered after a wait of its own
			if err := s.sleep(ms(a.DelaysMs[i]), ctx); err != nil {
				return harness.Chunk{}, err
			}
		}
		return s.toolCallChunk(i - a.Chunks), nil
	case i == a.Chunks+len(a.Calls):
		if i < len(a.DelaysMs) && (a.Chunks > 0 || len(a.Calls) > 0) { // a finish delivered after a wait of its own
			if err := s.sleep(ms(a.DelaysMs[i]), ctx); err != nil {
				return harness.Chunk{}, err
			}
		}
		if a.Chunks == 0 && len(a.Calls) == 0 {
			// An empty answer: it takes its time, then finishes with nothing in it.
			if err := s.sleep(delayBefore(a, i), ctx); err != nil {
				return harness.Chunk{}, err
			}
		}
		if a.Fault != faults.CallIDReuse { // it strikes when an id is reused (toolCallChunk)
			s.provider.tracer.strike(a.Fault)
		}
		return harness.Chunk{Kind: harness.ChunkFinish, Finish: a.Finish}, nil
	case i == a.Chunks+len(a.Calls)+1 && i < len(a.DelaysMs): // the end after a wait of its own
		if err := s.sleep(ms(a.DelaysMs[i]), ctx); err != nil {
			return harness.Chunk{}, err
		}
	}
	return harness.Chunk{}, io.EOF
}

// toolCallChunk is the chunk of the answer's j-th tool call. Its id is call-<request>-<j>, unique
// in the run, or call-<j> with the call-id-reuse fault, unique in the answer only. Its arguments
// carry the plan's Call, so the simulated tool knows how to behave, and the request that asked
// for it: its turn and step, with the id, name the call.
func (s *planStream) toolCallChunk(j int) harness.Chunk {
	call := &s.answer.Calls[j] // the plan's, read only
	var room [32]byte
	id := append(room[:0], "call-"...)
	if s.answer.CallIDsPerAnswer {
		id = strconv.AppendInt(id, int64(j+1), 10)
		p := s.provider
		p.tracer.mu.Lock()
		// This answer gave call-1 … call-j before; a number up to the high mark is another's.
		reused := j+1 <= p.perAnswerHigh
		p.perAnswerHigh = max(p.perAnswerHigh, j+1)
		p.tracer.mu.Unlock()
		if reused {
			p.tracer.strike(faults.CallIDReuse) // a later step gets an id an earlier one had
		}
	} else {
		id = strconv.AppendInt(id, int64(s.index+1), 10)
		id = strconv.AppendInt(append(id, '-'), int64(j+1), 10)
	}
	args, name := toolArguments{Request: s.index + 1, Call: *call}, call.Name
	args.Call.ID, args.Call.Arguments = "", "" // as delivered, they are no part of what the world encodes
	if u := s.provider.userTools; u != nil {
		name = u.rename(call.Name)
		if resent, ok := s.provider.tracer.aimer.resent(name); ok && u.known(name) && call.Arguments == "" {
			args.Input = resent // the model asks again for the call a cancel cut short (aim.go)
		} else if u.known(name) && call.Arguments == "" {
			args.Input = u.input(name)
		} else if u.known(name) {
			args.Input = call.Arguments // the user's tool gets what the incident's model sent
		}
	}
	callID, text := encodeCall(id, args)
	if call.ID != "" {
		callID = call.ID
	}
	if call.Arguments != "" {
		text = call.Arguments
	}
	args.CallID = callID
	if slices.Contains(call.Faults, faults.ToolUnknown) {
		s.provider.tracer.strike(faults.ToolUnknown) // the world asks for a tool nobody registered
	}
	s.provider.tracer.askCall(text, &args, call)
	return harness.Chunk{Kind: harness.ChunkToolCall, CallID: callID, Name: name, Arguments: text}
}

// failureError builds the error a provider returns for a planned failure.
func (p *planProvider) failureError(f faults.Fail) error {
	if f.Plain {
		return &wrappedCause{msg: f.Message, err: &wrappedCause{msg: plainCauseText, err: syscall.ECONNRESET}}
	}
	var cause error
	if f.CauseChain {
		cause = fmt.Errorf("dial tcp 127.0.0.1:443: %w", &wrappedCause{msg: "connect failed", err: syscall.ECONNREFUSED})
	}
	e := p.newLlmError()
	*e = harness.LlmError{
		Failure: harness.Failure{Code: f.Code, Message: f.Message, Status: f.Status, ProviderRetryAfterMs: f.RetryAfterMs, RequestID: f.RequestID},
		Cause:   cause,
	}
	return e
}

// newLlmError is room for a failure's error, cut from p.llmErrors: one allocation for a few
// failures instead of one each (a default-mix schedule's provider fails about twice). Each
// error is its own within a run; a sweep lends the first ones to its next seed (lendTrace).
func (p *planProvider) newLlmError() *harness.LlmError {
	if len(p.llmErrors) == 0 {
		p.llmErrors = make([]harness.LlmError, llmErrorsBuffered)
	}
	e := &p.llmErrors[0]
	p.llmErrors = p.llmErrors[1:]
	return e
}

// llmErrorsBuffered is how many failures' errors newLlmError makes room for at a time.
const llmErrorsBuffered = 4

// wrappedCause is an error that names its cause only through Unwrap, like a JavaScript error
// with a cause: ErrorChain must still show it.
type wrappedCause struct {
	msg string
	err error
}

func (e *wrappedCause) Error() string { return e.msg }
func (e *wrappedCause) Unwrap() error { return e.err }

// plainCauseText is the message of the plain error's cause, which its own message does not repeat
// (as many a library's does not): only the chain of causes tells the whole story.
const plainCauseText = "read failed"

// plainErrorText is the line the harness must record for the plain error failureError returns
// for message: the error and each of its causes once, outermost first (spec: ErrorChain).
func plainErrorText(message string) string {
	return message + ": " + plainCauseText + ": " + syscall.ECONNRESET.Error()
}

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

// toolArguments is what a simulated tool call carries: its id and its planned behaviour.
type toolArguments struct {
	CallID string `json:"callId"`
	// Request numbers the request whose answer asked for the call (from 1, as in call-<request>-
	// <j>): its turn and step, with CallID, name the call (ids are unique per step only).
	Request int `json:"request"`
	faults.Call
	// Input is what a user's tool is called with (see Agent.Arguments); turnsim's own tools
	// take none.
	Input string `json:"input,omitempty"`
}

// errToolFailed is what a tool planned to fail returns.
var errToolFailed = errors.New("tool failed as planned")

// planTools registers the simulated tools. Each call's behaviour travels in its arguments (the
// plan's Call, as JSON), so the log itself shows what the tool was meant to do.
func planTools(s harness.Runtime, t *tracer) []harness.Tool {
	return appendPlanTools(make([]harness.Tool, 0, len(faults.ParallelTools)+len(faults.ExclusiveTools)), s, t)
}

// appendPlanTools is planTools appended to tools: a world's go into the room it keeps for them
// (worldParts).
func appendPlanTools(tools []harness.Tool, s harness.Runtime, t *tracer) []harness.Tool {
	for _, name := range faults.ParallelTools {
		tools = append(tools, planTool(s, t, name, true))
	}
	for _, name := range faults.ExclusiveTools {
		tools = append(tools, planTool(s, t, name, false))
	}
	return tools
}

func planTool(s harness.Runtime, t *tracer, name string, parallel bool) harness.Tool {
	return harness.Tool{Name: name, Parallel: parallel, Run: func(ctx context.Context, arguments string) (string, error) {
		args, run, err := playPlannedCall(ctx, s, t, name, parallel, arguments)
		if err != nil {
			return "", err
		}
		content := name + " ok after " + strconv.FormatInt(args.LatencyMs, 10) + "ms"
		run.end(faults.OutcomeOK, content)
		return content, nil
	}}
}

// playPlannedCall plays what the plan decides of a tool call, for turnsim's own tools and a user's
// alike: it reads the plan's Call from the arguments, records the run's start, waits the planned
// latency (ended by ctx unless the call ignores cancellation), and carries out a planned panic or
// error. A non-nil err means the call ended there (cancelled, or failed as planned); otherwise the
// caller records the run's end with run.end.
func playPlannedCall(ctx context.Context, rt harness.Runtime, t *tracer, name string, parallel bool, arguments string) (args toolArguments, run toolRunning, err error) {
	args, err = t.askedCall(arguments)
	if err != nil {
		panic("sim: invariant: tool arguments are not a plan call: " + err.Error())
	}
	call := args.Call
	for _, f := range call.Faults {
		if f == faults.ToolLatency || f == faults.ToolLongLatency {
			t.strike(f) // the planned latency begins now
		}
	}
	run = t.toolStarted(properties.ToolRun{CallID: args.CallID, Name: name, Parallel: parallel, Outcome: call.Outcome, HonoursCancel: !call.IgnoreCancel}, args.Request)
	if m := t.aimer; m != nil {
		m.timerStarted(faults.TimerTool, ms(call.LatencyMs))
		if m.world.userTools == nil { // a user's call starts its moment when the user's tool runs (userTool)
			m.toolStarted(name, call.LatencyMs, run.index)
		}
	}
	if call.IgnoreCancel {
		err = rt.Sleep(ms(call.LatencyMs))
	} else {
		err = rt.Sleep(ms(call.LatencyMs), ctx)
	}
	if err != nil {
		run.end("cancelled", "")
		return args, run, err
	}
	if call.IgnoreCancel && ctx.Err() != nil {
		t.strike(faults.ToolIgnoresCancel) // it was cancelled mid-call and ran on
	}
	switch call.Outcome {
	case faults.OutcomePanic:
		text := "tool " + name + " exploded"
		t.strike(faults.ToolPanic)
		run.end(faults.OutcomePanic, text)
		panic(text)
	case faults.OutcomeError:
		t.strike(faults.ToolError)
		run.end(faults.OutcomeError, "")
		return args, run, errToolFailed
	case faults.OutcomeGoexit:
		t.strike(faults.ToolGoexit)
		run.end(faults.OutcomeGoexit, "runtime.Goexit")
		runtime.Goexit() // as t.FailNow in a test's tool: the goroutine ends, the call never returns
	case faults.OutcomeFailure:
		t.strike(faults.ToolFailure)
		failure := plannedToolFailure(name)
		run.endFailure(failure)
		return args, run, wrapToolFailure(failure, call.Wrap)
	}
	return args, run, nil
}

// toolStarted records a tool run starting now, of a call the request-th request asked for, and
// returns what records its end.
func (t *tracer) toolStarted(run properties.ToolRun, request int) toolRunning {
	run.StartMs, run.EndMs = t.nowMs(), -1
	t.mu.Lock()
	if i := request - 1; i >= 0 && i < len(t.trace.Requests) { // none: tools run without the world's provider
		run.Turn, run.Step = t.trace.Requests[i].Turn, t.trace.Requests[i].Step
	}
	t.toolsRunning++
	t.toolOrder++
	run.StartOrder, run.EndOrder = t.toolOrder, -1
	if t.trace.Tools == nil {
		t.trace.Tools = make([]properties.ToolRun, 0, toolRunsBuffered)
	}
	t.trace.Tools = append(t.trace.Tools, run)
	index := len(t.trace.Tools) - 1
	t.mu.Unlock()
	return toolRunning{tracer: t, index: index}
}

// toolRunsBuffered is the room the trace's tool runs start with, made at the first: most
// schedules run no tool (and make no room), and most of the others run a few.
const toolRunsBuffered = 4

// toolRunning is a tool run the trace records as started: a value, not a closure over the
// tracer and the run's index, so that recording one allocates nothing.
type toolRunning struct {
	tracer *tracer
	index  int
}

// end records the run's end now, with its outcome and what it returned.
func (r toolRunning) end(outcome, content string) {
	t := r.tracer
	now := t.nowMs()
	t.mu.Lock()
	t.toolsRunning--
	t.toolOrder++
	run := &t.trace.Tools[r.index]
	run.EndMs, run.Outcome, run.Content, run.EndOrder = now, outcome, content, t.toolOrder
	t.mu.Unlock()
}
