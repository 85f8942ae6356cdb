package sim

import (
	"fmt"
	"slices"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
)

// The user's and the host's side of a derivation: sends are in the log as they happened; a cancel
// shows through what it did (the messages it cleared, the turn it aborted with its cause), a
// disposal through the turn it aborted, the end of the llm-retry plugin through a backoff that
// stopped short or a failure it no longer retried, and a crash through the turn crash repair
// closed when the agent restarted.

// clear is a message a cancel dropped: the first of a cancel's clears is the cancel.
func (d *deriver) clear(e harness.Event, c harness.InboxClear) {
	delete(d.inbox, c.MessageID)
	if d.cancel >= 0 {
		return
	}
	d.now = max(d.now, e.Time)
	d.userAction(faults.Action{AtMs: d.rel(d.now), Kind: faults.ActCancel, Cause: harness.CauseUser})
	d.cancel = len(d.plan.Actions) - 1
	if d.turn == 0 {
		d.note(e.Seq, "a cancel cleared the inbox between turns: its cause is not in the log; the replay's says user")
	}
}

// cancelEnds closes the cancel whose clears the log showed, at e: between turns a cancel is over
// after its clears; in a turn it lasts until the turn's end names its cause.
func (d *deriver) cancelEnds(e harness.Event) {
	if d.cancel >= 0 && d.turn == 0 && e.Type != harness.TypeTurnEnd {
		d.cancel = -1
	}
}

// turnEnd reads how the turn ended: a failure ends its request, an abort is a cancel or a
// disposal, and a failure the llm-retry plugin should have retried is the plugin's end.
func (d *deriver) turnEnd(i int, t harness.TurnEnd) error {
	e := d.events[i]
	defer d.endTurn()
	switch t.Reason.Kind {
	case harness.EndError:
		f := harness.Failure{Code: harness.CodeUnknown}
		if t.Reason.Error != nil {
			f = *t.Reason.Error
		}
		switch {
		case d.attempt != nil:
			if !d.pluginEnded && d.wouldRetry(f) {
				d.pluginEnd(d.attempt.startMs, e.Seq, "a failure the policy retries ended the turn")
			}
			at := e.Time
			if d.events[i-1].Type == harness.TypeStepEnd {
				at = d.events[i-1].Time // the failure came before the step ended
			}
			d.now = max(d.now, at)
			return d.failed(e.Seq, d.now, f)
		case d.retryWaiting != nil:
			// Before the backoff's end on the replay's clock, which would have started the retry.
			d.now = max(d.now, min(e.Time, d.retryDueMs-1))
			d.pluginEnd(d.now, e.Seq, "a backoff ended before its delay, and the turn with it")
			return nil
		}
		return fmt.Errorf("seq %d: turn %d ended in error (%s: %s) outside any request: no planned answer gives that (a refused append, or a handler's failure?)", e.Seq, t.Turn, f.Code, f.Message)
	case harness.EndAborted:
		d.aborted(i, t)
	case harness.EndCompleted, harness.EndMaxTokens:
		if d.cancel >= 0 {
			d.note(e.Seq, "a cancel cleared the inbox during turn %d, which still ended %s: its cause is not in the log; the replay's says user", t.Turn, t.Reason.Kind)
		}
	}
	return nil
}

// endTurn forgets the turn that ended.
func (d *deriver) endTurn() {
	d.turn, d.step, d.attempt, d.retryWaiting, d.cancel = 0, nil, nil, nil, -1
}

// pluginEnd ends the llm-retry plugin at atMs: once per incarnation, whose next has a new one.
func (d *deriver) pluginEnd(atMs, seq int64, why string) {
	d.pluginEnded = true
	d.plan.Actions = append(d.plan.Actions, faults.Action{AtMs: d.rel(atMs), Kind: faults.ActPluginEnd})
	d.note(seq, "%s: the llm-retry plugin had ended; when exactly is not in the log, the replay ends it at %d ms", why, d.rel(atMs))
}

// aborted is a turn a cancel or a disposal ended: the action strikes when the log's events say it
// did, and cuts the request or the calls in flight there.
func (d *deriver) aborted(i int, t harness.TurnEnd) {
	e := d.events[i]
	cause := harness.CancelCause{Kind: harness.CauseUser}
	if t.Reason.Reason != nil {
		cause = *t.Reason.Reason
	}
	atMs, exact := d.cancelTime(i)
	if d.cancel >= 0 {
		atMs = d.plan.Actions[d.cancel].AtMs + d.origin
	} else if !exact {
		d.note(e.Seq, "turn %d was aborted while tools drained: when the %s struck is not in the log; the replay's strikes at %d ms", t.Turn, cause.Kind, d.rel(atMs))
	}
	stepEnd := d.events[i-1].Time
	if a := d.attempt; d.cancel < 0 && a != nil && a.finish != nil && stepEnd-a.lastMs >= 2 {
		// The answer had finished, no message followed, and the step ended later: the cancel
		// struck while the stream took its time to end. When exactly is not in the log; the
		// replay's strikes right after the finish.
		atMs = a.lastMs + 1
		d.note(e.Seq, "turn %d was aborted after its answer finished and before its stream ended: the replay's %s strikes at %d ms", t.Turn, cause.Kind, d.rel(atMs))
	}
	if d.attempt != nil && stepEnd-atMs >= 2 {
		d.cutLate(atMs, stepEnd, e.Seq)
	}
	d.cutAttempt(atMs, e.Seq)
	d.outlast(atMs, e.Seq)
	d.now = atMs
	switch {
	case cause.Kind == harness.CauseDisposed:
		d.plan.Actions = append(d.plan.Actions, faults.Action{AtMs: d.rel(atMs), Kind: faults.ActDispose})
	case d.cancel >= 0:
		d.plan.Actions[d.cancel].Cause, d.plan.Actions[d.cancel].Reason = cause.Kind, cause.Reason
	default:
		d.plan.Actions = append(d.plan.Actions, faults.Action{AtMs: d.rel(atMs), Kind: faults.ActCancel, Cause: cause.Kind, Reason: cause.Reason, KeepInbox: len(d.inbox) > 0})
	}
}

// cancelTime is when the cancel that ended the turn at events[i] struck, and whether the log
// fixes it, on the replay's clock. Without tools in flight, a stream, a backoff or a request was
// cut at once: the step's end is the time (before a backoff's end, which would have started the
// retry). With tools, the cancel came after the last dispatch and after every call that honours
// cancellation yet ran to its planned end, and before every call it cut short, and before the
// step would have ended had all run their course (the replay's next step starts at once). A
// waking send in that span came after the cancel when the next turn starts at once (its wake
// was latched), before it when none does. The middle of what is left is taken.
func (d *deriver) cancelTime(i int) (int64, bool) {
	upper, lower := d.events[i].Time, d.lastProgressMs
	natural, exact := int64(-1), int64(-1)
	tools, cut := false, false
	var sends []int64
walk:
	for j := i - 1; j >= 0; j-- {
		e := d.events[j]
		switch data := e.Data.(type) {
		case harness.StepEnd:
			upper = min(upper, e.Time)
		case harness.UserMessage:
		case harness.InboxPush:
			if data.Kind != harness.KindInject {
				sends = append(sends, e.Time)
			}
		case harness.ToolResult:
			tools = true
			sc := d.stepCall(data.CallID)
			if data.Error != nil && data.Error.Code == harness.CodeToolAbortedBeforeDispatch || sc == nil || !sc.planned {
				continue
			}
			call := d.plan.Answers[sc.answer].Calls[sc.index]
			end := sc.dispatchSimMs + call.LatencyMs
			if data.Error != nil && data.Error.Code == harness.CodeToolNotFound {
				end = sc.dispatchSimMs
			}
			switch {
			case !ranItsCourse(call, data):
				cut = true
				upper = min(upper, end-1)
				if !d.committedAfter(j) {
					exact = e.Time // cut short, and committed at once: the cancel's very time
				}
			case !call.IgnoreCancel:
				lower = max(lower, end) // it would have been cut: the cancel came after
				natural = max(natural, end)
			default:
				natural = max(natural, end)
			}
		case harness.ToolCall:
			if d.synthetic(j) {
				continue
			}
			tools = true
			if sc := d.stepCall(data.CallID); sc != nil {
				lower = max(lower, sc.dispatchSimMs)
			}
			break walk
		default:
			break walk
		}
	}
	if tools && !cut && natural >= 0 {
		upper = min(upper, natural) // had all run their course by then, the next step would start
	}
	spread := tools
	if len(sends) > 0 {
		latched := i+1 < len(d.events) && d.events[i+1].Type == harness.TypeTurnStart && d.events[i+1].Time-d.events[i].Time <= wakeSlackMs
		if latched {
			upper, spread = min(upper, slices.Max(sends)-1), true
		} else {
			lower = max(lower, slices.Max(sends))
		}
	}
	if d.retryWaiting != nil {
		upper = min(upper, d.retryDueMs-1) // at its end the backoff would have started the retry
	}
	switch {
	case exact >= 0:
		return min(max(exact, lower), max(upper, lower)), true
	case !spread || upper-lower <= 1:
		return max(upper, lower), true
	}
	return lower + (upper-lower)/2, false
}

// committedAfter reports whether the tool/result at events[j] waited for an earlier call's
// result (results are committed in model order): the result just before it came at its time.
func (d *deriver) committedAfter(j int) bool {
	for k := j - 1; k >= 0; k-- {
		switch d.events[k].Type {
		case harness.TypeToolResult:
			return d.events[k].Time == d.events[j].Time
		case harness.TypeToolCall:
			continue
		}
		return false
	}
	return false
}

// ranItsCourse reports whether a planned call's result is what its plan gives when it runs to
// the end: its planned outcome, not a cancellation's error.
func ranItsCourse(call faults.Call, r harness.ToolResult) bool {
	if r.Error != nil && r.Error.Code == harness.CodeToolNotFound {
		return true
	}
	switch call.Outcome {
	case faults.OutcomeOK:
		return !r.IsError
	case faults.OutcomeError:
		return r.IsError && r.Error != nil && r.Error.Message == errToolFailed.Error()
	case faults.OutcomeFailure:
		return r.IsError && r.Error != nil && r.Error.Code == toolFailureCode
	}
	return r.IsError && r.Error != nil && r.Error.Code == harness.CodeToolPanic
}

// stepCall is the open step's call of id, nil when there is none.
func (d *deriver) stepCall(id string) *stepCall {
	if d.step == nil || d.step.calls == nil {
		return nil
	}
	return d.step.calls[id]
}
