package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
)

// The provider's side of a derivation: each request the log shows (a step's first, after its
// claims; a retry's, after llm/retry-started) becomes the next answer of the plan, shaped by what
// came back and how it ended.

// attempt is one request in flight: when it went, and what it streamed so far.
type attempt struct {
	startMs int64
	seq     int64 // the event that sent it
	texts   []string
	textMs  []int64
	calls   []harness.Chunk
	finish  *harness.Chunk
	// finishMs is when the finish came, lastMs when the last chunk did.
	finishMs, lastMs int64
}

// empty reports whether nothing came back yet.
func (a *attempt) empty() bool { return len(a.texts) == 0 && len(a.calls) == 0 && a.finish == nil }

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
	dispatchMs, endMs    int64
	dispatched, resulted bool
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
		if len(a.calls) > 0 {
			d.note(e.Seq, "a text chunk after a tool-call chunk: the replay streams every text before the calls")
		}
		a.texts, a.textMs = append(a.texts, c.Chunk.Text), append(a.textMs, e.Time)
	case harness.ChunkToolCall:
		a.calls = append(a.calls, c.Chunk)
	case harness.ChunkFinish:
		chunk := c.Chunk
		a.finish, a.finishMs = &chunk, e.Time
	}
	a.lastMs = e.Time
	return nil
}

// completed is a request that finished: its answer streams the texts, the calls and the finish.
func (d *deriver) completed(e harness.Event, m harness.AssistantMessage) error {
	a := d.attempt
	if a == nil {
		return fmt.Errorf("seq %d: an assistant/message outside any request", e.Seq)
	}
	answer := d.streamed(a, len(a.texts), e.Time)
	if steps := len(a.texts) + len(a.calls) + 1; len(a.calls)+len(a.texts) > 0 && paced(a, answer.ChunkDelayMs) {
		// Its calls and finish took their time as its texts did: a stream that paces every
		// chunk (and, as the world plays one, ignores its context: the harness stops at the
		// cancellation itself).
		answer.IgnoreCancel = true
		answer.ChunkDelayMs = int64(math.Round(float64(a.finishMs-a.startMs) / float64(steps)))
	}
	answer.Finish = m.Finish
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
	d.plan.Answers = append(d.plan.Answers, answer)
	d.attempt = nil
	return nil
}

// retried is a request that failed and is retried: its answer fails as the record says, and the
// random draws the decision took are kept for the replay.
func (d *deriver) retried(i int, r harness.LlmRetry) error {
	e := d.events[i]
	if d.attempt == nil {
		return fmt.Errorf("seq %d: an llm/retry outside any request (a retry a downstream handler asked for? the replay cannot tell its request)", e.Seq)
	}
	if err := d.failed(e, r.Failure); err != nil {
		return err
	}
	d.retryWaiting = &d.events[i]
	d.chain(e, r)
	return nil
}

// failed is a request that ended in failure at e: its answer streams the texts and fails.
func (d *deriver) failed(e harness.Event, f harness.Failure) error {
	a := d.attempt
	if a.finish != nil && len(a.calls) == 0 && len(a.texts) == 0 && f.Code == harness.CodeEmptyResponse {
		// A finish with nothing before it: the harness's assembler called it empty.
		answer := d.streamed(a, 0, a.finishMs)
		answer.Finish = a.finish.Finish
		answer.ChunkDelayMs = min(max(0, a.finishMs-a.startMs), faults.DurationMsMax)
		d.plan.Answers = append(d.plan.Answers, answer)
		d.attempt = nil
		return nil
	}
	if len(a.calls) > 0 || a.finish != nil {
		return fmt.Errorf("seq %d: a failure (%s) after a streamed tool call or finish: no planned answer fails there", e.Seq, f.Code)
	}
	answer := d.streamed(a, len(a.texts)+1, e.Time)
	answer.Fail = &faults.Fail{Code: f.Code, Message: f.Message, Status: f.Status, RetryAfterMs: f.ProviderRetryAfterMs, RequestID: f.RequestID}
	d.plan.Answers = append(d.plan.Answers, answer)
	d.attempt = nil
	return nil
}

// cutAttempt ends the request in flight at atMs (a cancel or a crash struck): its answer streams
// what came and is still streaming then, so the cut finds it where the log does.
func (d *deriver) cutAttempt(atMs, seq int64) {
	a := d.attempt
	if a == nil {
		return
	}
	d.attempt = nil
	k := len(a.texts)
	answer := d.streamed(a, k, a.lastMs)
	if k == 0 {
		// Nothing came: whatever the answer was, it comes after the cut.
		answer.ChunkDelayMs = min(atMs-a.startMs+cutMarginMs, faults.DurationMsMax)
	} else if next := a.startMs + int64(k+1)*answer.ChunkDelayMs; next <= atMs {
		// The next chunk must come after the cut: the delay grows, and the streamed chunks
		// come a little later than they did.
		answer.ChunkDelayMs = (atMs-a.startMs)/int64(k+1) + 1
		if drift := int64(k) * answer.ChunkDelayMs; a.startMs+drift-a.lastMs > replayDriftMs {
			d.note(seq, "the answer cut at %d ms streamed its %d chunks unevenly: the replay's come up to %d ms later", d.rel(atMs), k, a.startMs+drift-a.lastMs)
		}
	}
	answer.Chunks = k + 1
	answer.Finish = harness.FinishCompleted
	answer.Calls = nil
	if len(a.calls) > 0 || a.finish != nil {
		d.note(seq, "the request cut at %d ms had streamed tool calls or its finish: the replay's answer stops before them", d.rel(atMs))
	}
	d.note(a.seq, "the request sent here was cut at %d ms: what the rest of its answer would have been is not in the log; the replay's goes on with text", d.rel(atMs))
	d.plan.Answers = append(d.plan.Answers, answer)
}

// cutLate ends the request in flight, which a cancel at cancelMs ended only at endMs: its stream
// ignored the cancellation, and the harness saw it when the next chunk came. Its answer paces
// every chunk (texts, calls, then a finish that comes at endMs) and ignores its context, as the
// world plays a stream that does.
func (d *deriver) cutLate(cancelMs, endMs, seq int64) {
	a := d.attempt
	d.attempt = nil
	steps := len(a.texts) + len(a.calls) + 1
	answer := d.streamed(a, steps, endMs)
	answer.IgnoreCancel, answer.Finish = true, harness.FinishCompleted
	index := len(d.plan.Answers)
	for j, c := range a.calls {
		call, _ := d.call(index, j, c)
		answer.Calls = append(answer.Calls, call)
	}
	d.note(seq, "the cancel at %d ms ended the request only at %d ms: its stream ignored the cancellation; the replay's does, and what it would have said after is not in the log", d.rel(cancelMs), d.rel(endMs))
	d.plan.Answers = append(d.plan.Answers, answer)
}

// paced reports whether the attempt's finish came well after its last text chunk: a stream that
// paces its calls and finish as it paces its texts, not one that sends them at once.
func paced(a *attempt, delayMs int64) bool {
	last := a.startMs
	if n := len(a.textMs); n > 0 {
		last = a.textMs[n-1]
	}
	gap := a.finishMs - last
	return a.finish != nil && gap >= 2 && (len(a.textMs) == 0 || 2*gap >= delayMs)
}

// Margins of a derivation: how far after a cut the rest of a cut answer comes, and how much a
// replay's times may drift from the log's before the derivation says so.
const (
	cutMarginMs   = 1000
	replayDriftMs = 20
)

// streamed is the answer of an attempt's first k text chunks, ending (its last chunk, or its
// failure when there are k = texts+1 steps) at endMs: the chunks spread evenly from the request.
func (d *deriver) streamed(a *attempt, k int, endMs int64) faults.Answer {
	texts := a.texts
	answer := faults.Answer{Chunks: len(texts)}
	if k > 0 {
		answer.ChunkDelayMs = int64(math.Round(float64(endMs-a.startMs) / float64(k)))
		answer.ChunkDelayMs = min(max(answer.ChunkDelayMs, 0), faults.DurationMsMax)
	}
	for i, t := range texts {
		if t != partText(i+1) {
			answer.Texts = texts
			break
		}
	}
	return answer
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
		if wantID, wantText := encodeCall([]byte(id), toolArguments{Request: index + 1, Call: call, Input: args.Input}); wantID != c.CallID || wantText != c.Arguments {
			call.ID, call.Arguments = c.CallID, c.Arguments
		}
		return call, true
	}
	return faults.Call{Name: c.Name, Outcome: faults.OutcomeOK, ID: c.CallID, Arguments: c.Arguments}, false
}
