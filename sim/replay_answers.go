package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
)

// The provider's side of a derivation: each request the log shows (a step's first, after its
// claims; a retry's, after llm/retry-started) becomes the next answer of the plan, shaped by what
// came back and how it ended.

// attempt is one request in flight: when it went, and what it streamed so far, when.
type attempt struct {
	startMs int64
	seq     int64 // the event that sent it
	texts   []string
	calls   []harness.Chunk
	finish  *harness.Chunk
	// atMs are the times of its deliveries so far (texts, calls, finish), in order; lastMs the
	// last one's (the start's before any).
	atMs   []int64
	lastMs int64
}

// empty reports whether nothing came back yet.
func (a *attempt) empty() bool { return len(a.atMs) == 0 }

// stepRecord is the open step's answer and its calls, by id.
type stepRecord struct {
	turn, step int
	// answer is the index of the step's completed answer in the plan (-1: none yet).
	answer int
	calls  map[string]*stepCall
	// order lists the dispatched calls' ids in dispatch order; retries counts the step's chain.
	order   []string
	retries int
}

// stepCall is one call of the step's answer: where it sits in the plan, whether its arguments
// carry its planned behaviour, and when it was dispatched.
type stepCall struct {
	answer, index int
	planned       bool
	// dispatchMs is when it was dispatched, endMs when it was planned to end (its result's
	// time when no plan says).
	dispatchMs, endMs int64
	// dispatchSimMs is when the replay dispatches it; callSeq and resultSeq are its tool/call's
	// and its tool/result's places in the log.
	dispatchSimMs, callSeq, resultSeq int64
	dispatched, resulted              bool
	// aborted is set for a call the abort kept from starting (its synthetic result).
	aborted bool
	// delivered is the call's chunk as the log has it.
	delivered harness.Chunk
}

func (d *deriver) chunk(e harness.Event, c harness.AssistantChunk) error {
	a := d.attempt
	if a == nil {
		return fmt.Errorf("seq %d: a chunk outside any request", e.Seq)
	}
	switch c.Chunk.Kind {
	case harness.ChunkText:
		if len(a.calls) > 0 || a.finish != nil {
			return fmt.Errorf("seq %d: a text chunk after a tool-call chunk: no planned answer streams text after its calls", e.Seq)
		}
		a.texts = append(a.texts, c.Chunk.Text)
	case harness.ChunkToolCall:
		a.calls = append(a.calls, c.Chunk)
	case harness.ChunkFinish:
		chunk := c.Chunk
		a.finish = &chunk
	}
	d.now = max(d.now, e.Time)
	a.atMs, a.lastMs = append(a.atMs, d.now), d.now
	return nil
}

// completed is a request that finished: its answer streams the texts, the calls and the finish
// when the log has them.
func (d *deriver) completed(e harness.Event, m harness.AssistantMessage) error {
	a := d.attempt
	if a == nil {
		return fmt.Errorf("seq %d: an assistant/message outside any request", e.Seq)
	}
	answer := d.streamed(a, nil)
	answer.Finish = m.Finish
	if closeMs := e.Time - a.lastMs; closeMs > 0 && a.finish != nil {
		// The stream took closeMs to end after its finish (a body read to its close, as a stream
		// that ignores cancellation does): the replay's waits as long before its end.
		answer.DelaysMs = append(deliveryDelays(a, nil), min(closeMs, faults.DurationMsMax))
	}
	d.now = max(d.now, e.Time)
	index := len(d.plan.Answers)
	if d.step != nil {
		d.step.answer, d.step.calls = index, map[string]*stepCall{}
	}
	for j, c := range a.calls {
		call, planned := d.call(index, j, c)
		answer.Calls = append(answer.Calls, call)
		if d.step != nil {
			d.step.calls[c.CallID] = &stepCall{answer: index, index: j, planned: planned, delivered: c}
		}
	}
	d.appendAnswer(answer)
	return nil
}

// retried is a request that failed and is retried: its answer fails as the record says, and the
// random draws the decision took are kept for the replay.
func (d *deriver) retried(i int, r harness.LlmRetry) error {
	e := d.events[i]
	if d.attempt == nil {
		return fmt.Errorf("seq %d: an llm/retry outside any request (a retry a downstream handler asked for? the replay cannot tell its request)", e.Seq)
	}
	d.now = max(d.now, e.Time)
	if err := d.failed(e.Seq, d.now, r.Failure); err != nil {
		return err
	}
	d.retryWaiting, d.retryDueMs = &d.events[i], d.now+int64(math.Round(r.DelayMs))
	d.chain(e, r)
	return nil
}

// failed is a request that ended in failure at atMs: its answer streams the texts and fails.
func (d *deriver) failed(seq, atMs int64, f harness.Failure) error {
	a := d.attempt
	if a.finish != nil && len(a.calls) == 0 && len(a.texts) == 0 && f.Code == harness.CodeEmptyResponse {
		// A finish with nothing before it: the harness's assembler called it empty.
		answer := d.streamed(a, nil)
		answer.Finish = a.finish.Finish
		d.appendAnswer(answer)
		return nil
	}
	if len(a.calls) > 0 || a.finish != nil {
		return fmt.Errorf("seq %d: a failure (%s) after a streamed tool call or finish: no planned answer fails there", seq, f.Code)
	}
	end := max(atMs, a.lastMs)
	answer := d.streamed(a, &end)
	answer.Fail = &faults.Fail{Code: f.Code, Message: f.Message, Status: f.Status, RetryAfterMs: f.ProviderRetryAfterMs, RequestID: f.RequestID}
	d.appendAnswer(answer)
	return nil
}

// cutAttempt ends the request in flight at atMs (a cancel or a crash struck): its answer streams
// what came, and its next delivery comes well after the cut, so the cut finds it where the log
// does.
func (d *deriver) cutAttempt(atMs, seq int64) {
	a := d.attempt
	if a == nil {
		return
	}
	var answer faults.Answer
	if a.finish != nil {
		// Its finish came, and the cut struck before the harness wrote the message: the
		// replay's harness writes it at once.
		answer = d.streamed(a, nil)
		answer.Finish = a.finish.Finish
		d.note(seq, "the request was cut at %d ms after its finish came and before its message was written: the replay's is written", d.rel(atMs))
	} else {
		next := max(atMs, a.lastMs) + cutMarginMs
		answer = d.streamed(a, &next)
		if len(a.calls) == 0 {
			answer.Chunks++ // the next is one more text chunk
		}
		answer.Finish = harness.FinishCompleted
	}
	d.cutCalls(&answer, a)
	d.note(a.seq, "the request sent here was cut at %d ms: what the rest of its answer would have been is not in the log; the replay's goes on with text", d.rel(atMs))
	d.appendAnswer(answer)
}

// cutLate ends the request in flight, which a cancel at cancelMs ended only at endMs: its stream
// ignored the cancellation, and the harness saw it when the next delivery came. Its answer
// delivers that at endMs and ignores its context, as the world plays a stream that does.
func (d *deriver) cutLate(cancelMs, endMs, seq int64) {
	a := d.attempt
	if a.finish != nil {
		// Its finish came, and its stream took until endMs to end, the cancellation
		// notwithstanding: the replay's answer ends as late, and the cancel lands before it ends.
		answer := d.streamed(a, nil)
		answer.IgnoreCancel, answer.Finish = true, a.finish.Finish
		answer.DelaysMs = deliveryDelays(a, &endMs) // an ignoring stream waits before each delivery
		d.cutCalls(&answer, a)
		d.note(seq, "the cancel at %d ms came after the request's finish, and its stream ended only at %d ms: the replay's ignores the cancellation as long, and writes no message", d.rel(cancelMs), d.rel(endMs))
		d.appendAnswer(answer)
		return
	}
	answer := d.streamed(a, &endMs)
	if len(a.calls) == 0 {
		answer.Chunks++
	}
	answer.IgnoreCancel, answer.Finish = true, harness.FinishCompleted
	d.cutCalls(&answer, a)
	d.note(seq, "the cancel at %d ms ended the request only at %d ms: its stream ignored the cancellation; the replay's does, and what it would have said after is not in the log", d.rel(cancelMs), d.rel(endMs))
	d.appendAnswer(answer)
}

// cutCalls gives a cut answer the calls its stream delivered before the cut.
func (d *deriver) cutCalls(answer *faults.Answer, a *attempt) {
	index := len(d.plan.Answers)
	for j, c := range a.calls {
		call, _ := d.call(index, j, c)
		answer.Calls = append(answer.Calls, call)
	}
	if len(a.calls) > 0 {
		answer.Finish = harness.FinishToolCalls
	}
}

// appendAnswer adds the attempt's answer to the plan: the request is over.
func (d *deriver) appendAnswer(answer faults.Answer) {
	d.plan.Answers = append(d.plan.Answers, answer)
	d.attempt = nil
}

// cutMarginMs is how far after a cut the rest of a cut answer comes.
const cutMarginMs = 1000

// streamed is the answer of what the attempt delivered, each delivery at its time, and then, when
// next is set, one more delivery (a text chunk, a failure, a finish) at *next.
func (d *deriver) streamed(a *attempt, next *int64) faults.Answer {
	answer := faults.Answer{Chunks: len(a.texts)}
	delays := deliveryDelays(a, next)
	for i, t := range a.texts {
		if t != partText(i+1) {
			answer.Texts = a.texts
			break
		}
	}
	// A typical text gap for ChunkDelayMs; the delays themselves only where they say more.
	if len(delays) > 0 {
		answer.ChunkDelayMs = delays[0]
	}
	if !evenlyPaced(answer.ChunkDelayMs, delays, len(a.texts), len(a.calls), a.finish != nil) {
		answer.DelaysMs = delays
	}
	return answer
}

// deliveryDelays are the waits before each of the attempt's deliveries, and before one more at
// *next when next is set.
func deliveryDelays(a *attempt, next *int64) []int64 {
	prev := a.startMs
	delays := make([]int64, 0, len(a.atMs)+2)
	for _, at := range a.atMs {
		delays = append(delays, min(max(at-prev, 0), faults.DurationMsMax))
		prev = at
	}
	if next != nil {
		delays = append(delays, min(max(*next-prev, 0), faults.DurationMsMax))
	}
	return delays
}

// evenlyPaced reports whether ChunkDelayMs alone gives delays, as the world waits without
// DelaysMs: each text chunk waits it, calls come at once, and the end (a failure, a text chunk
// more, or the finish of an answer with neither text nor calls) waits it, while a finish after
// text or calls comes at once.
func evenlyPaced(chunkDelayMs int64, delays []int64, texts, calls int, finished bool) bool {
	for i, delay := range delays {
		wants := chunkDelayMs
		switch {
		case i < texts:
		case i < texts+calls:
			wants = 0
		case calls > 0 || finished && texts > 0:
			wants = 0
		}
		if delay != wants {
			return false
		}
	}
	return true
}

// plannedToolName reports whether name is one of turnsim's simulated tools' (or the unknown one
// the world calls): a call to any other is a user's tool's, whose arguments the world encodes
// with the user's input.
func plannedToolName(name string) bool {
	return slices.Contains(faults.ParallelTools, name) || slices.Contains(faults.ExclusiveTools, name) || name == faults.UnknownTool
}

// call is the j-th tool call of the index-th answer: its planned behaviour, from its arguments
// when they carry one (turnsim's simulated tools, and the fault server, write the plan's call
// there), else a call whose latency and outcome its tool/result will tell. The call's id and
// arguments are kept as delivered unless the world would make the same.
func (d *deriver) call(index, j int, c harness.Chunk) (faults.Call, bool) {
	var args toolArguments
	if err := json.Unmarshal([]byte(c.Arguments), &args); err == nil && args.CallID == c.CallID && args.Name != "" && args.Outcome != "" {
		call := args.Call
		call.Name = c.Name
		id := "call-" + strconv.Itoa(index+1) + "-" + strconv.Itoa(j+1)
		wantID, wantText := encodeCall([]byte(id), toolArguments{Request: index + 1, Call: call, Input: args.Input})
		if wantID != c.CallID || wantText != c.Arguments || !plannedToolName(c.Name) {
			// A user's tool gets its input in the world's encoding: the log's text is kept.
			call.ID, call.Arguments = c.CallID, c.Arguments
		}
		return call, true
	}
	return faults.Call{Name: c.Name, Outcome: faults.OutcomeOK, ID: c.CallID, Arguments: c.Arguments}, false
}
