package sim

import (
	"fmt"
	"slices"
	"strings"

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
	if stepEnd := d.events[i-1].Time; d.attempt != nil && stepEnd-atMs >= 2 {
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

// findRepairs marks the events crash repair wrote: each turn/end {interrupted} and the results
// and step/end just before it that close the turn a crash left open.
func (d *deriver) findRepairs() {
	for i, e := range d.events {
		end, ok := e.Data.(harness.TurnEnd)
		if !ok || end.Reason.Kind != harness.EndInterrupted {
			continue
		}
		k := i
		for k > 0 && d.repairLike(k-1, i) {
			k--
		}
		for k < i && len(harness.RepairEvents(d.events[:k])) != i-k+1 {
			k++ // what looked like repair was the dead incarnation's own
		}
		for j := k; j <= i; j++ {
			d.repairAt[j] = true
		}
	}
}

// repairLike reports whether events[j] may be crash repair's, closing the turn at events[end].
func (d *deriver) repairLike(j, end int) bool {
	switch data := d.events[j].Data.(type) {
	case harness.StepEnd:
		return j == end-1
	case harness.ToolResult:
		return data.Error != nil && (data.Error.Code == harness.CodeToolNotStarted || data.Error.Code == harness.CodeToolOutcomeUnknown)
	}
	return false
}

// crashBefore is the crash the repair at events[k] tells: the dead incarnation's last event came
// just before it, and the agent restarted when its repair was written. The crash strikes 1 ms
// after that last event, which is as late as the log lets it: whatever the dead incarnation
// would have done next is not in the log.
func (d *deriver) crashBefore(k int) {
	last, restart := d.events[k-1], d.events[k]
	d.cancelledBeforeCrash(k)
	crashAt := min(max(last.Time, d.now)+1, restart.Time)
	if d.retryWaiting != nil {
		r := d.retryWaiting.Data.(harness.LlmRetry)
		if due := d.retryWaiting.Time + int64(r.DelayMs); due <= crashAt {
			d.note(last.Seq, "the backoff of llm/retry %d was due at %d ms, before the crash: the replay's retry starts before its process dies", d.retryWaiting.Seq, d.rel(due))
		}
	}
	d.cutAttempt(crashAt, last.Seq)
	d.outlast(crashAt, last.Seq)
	d.crashAt = crashAt
	d.plan.Actions = append(d.plan.Actions, faults.Action{AtMs: d.rel(crashAt), Kind: faults.ActCrash, RestartAfterMs: restart.Time - crashAt})
	d.note(last.Seq, "the process died after this event and restarted at %d ms: when exactly it died is not in the log; the replay kills it at %d ms", d.rel(restart.Time), d.rel(crashAt))
	d.newIncarnation()
	d.step, d.attempt, d.retryWaiting, d.message = nil, nil, nil, nil
	d.now = restart.Time
}

// newIncarnation starts the agent's next life: its own random source and llm-retry plugin.
func (d *deriver) newIncarnation() {
	d.incarnation++
	d.replay.Draws = append(d.replay.Draws, Draws{})
	d.pluginEnded = false
}

// restartedIdle is a restart the log shows only by its effect at seq (a fresh llm-retry plugin
// after the last one ended): the process died while idle, before the turn that began at
// events[start], and came back before that turn's first event. It strikes in the middle of the
// idle span before that turn.
func (d *deriver) restartedIdle(start int, seq int64, why string) {
	// The send that woke the turn must find the agent up: the gap ends before it.
	j := start - 1
	for j > 0 && (d.events[j].Type == harness.TypeInboxPush || d.events[j].Type == harness.TypeUserMessage) {
		j--
	}
	from, until := d.events[max(j, 0)].Time, d.events[min(j+1, start)].Time
	crashAt := from + (until-from)/2
	restart := max(1, (until-crashAt)/2)
	if crashAt+restart >= until {
		restart = max(0, until-crashAt-1)
	}
	d.plan.Actions = append(d.plan.Actions, faults.Action{AtMs: d.rel(crashAt), Kind: faults.ActCrash, RestartAfterMs: restart})
	d.note(seq, "%s: the process restarted while idle before turn %d; when is not in the log, the replay kills it at %d ms and restarts it %d ms later", why, d.turn, d.rel(crashAt), restart)
	d.newIncarnation()
}

// cancelledBeforeCrash is a cancel the log shows only by what it did to the tool calls of the
// step a crash then interrupted (before the turn's end could say so): calls cut short with the
// cancel's own error, calls never started. It struck when the first of them was written, with
// the cause the cut calls' errors name.
func (d *deriver) cancelledBeforeCrash(k int) {
	if d.step == nil || d.cancel >= 0 {
		return
	}
	at, cause, found := int64(-1), harness.CancelCause{Kind: harness.CauseUser}, false
	for j := k - 1; j >= 0 && d.events[j].Type != harness.TypeStepStart; j-- {
		r, ok := d.events[j].Data.(harness.ToolResult)
		if !ok || r.Error == nil {
			continue
		}
		if c, named := causeNamed(r.Error.Message); named {
			at, cause, found = d.events[j].Time, c, true
		} else if r.Error.Code == harness.CodeToolAbortedBeforeDispatch {
			at = d.events[j].Time
		}
	}
	if at < 0 {
		return
	}
	if !found {
		d.note(d.events[k-1].Seq, "calls never started say a cancel struck before the crash, but not its cause: the replay's says user")
	}
	d.plan.Actions = append(d.plan.Actions, faults.Action{AtMs: d.rel(max(at, d.lastProgressMs)), Kind: faults.ActCancel, Cause: cause.Kind, Reason: cause.Reason, KeepInbox: true})
	d.note(d.events[k-1].Seq, "a %s cancel struck before the crash: the turn's end that would name it was never written", cause.Kind)
}

// causeNamed reads the cancel cause an error text names ("harness: cancelled (hook): reason"),
// as the harness renders a cancellation a tool returned.
func causeNamed(text string) (harness.CancelCause, bool) {
	for _, kind := range []string{harness.CauseUser, harness.CauseParent, harness.CauseHook, harness.CauseDisposed} {
		bare := harness.CancelCause{Kind: kind}.Error()
		if text == bare {
			return harness.CancelCause{Kind: kind}, true
		}
		if reason, ok := strings.CutPrefix(text, bare+": "); ok {
			return harness.CancelCause{Kind: kind, Reason: reason}, true
		}
	}
	return harness.CancelCause{}, false
}

// repairEvent reads an event crash repair wrote: its turn/end closes the turn the crash left open.
func (d *deriver) repairEvent(i int) {
	d.now = max(d.now, d.events[i].Time)
	switch data := d.events[i].Data.(type) {
	case harness.TurnEnd:
		d.turn, d.cancel = 0, -1
		if len(d.inbox) > 0 && (i+1 == len(d.events) || d.events[i+1].Type != harness.TypeTurnStart) {
			// A restart wakes the agent, and its queued messages would start a turn: none did,
			// so the host had disposed of it while it was down.
			at := d.crashAt + (d.events[i].Time-d.crashAt)/2
			d.plan.Actions = append(d.plan.Actions, faults.Action{AtMs: d.rel(at), Kind: faults.ActDispose})
			d.note(d.events[i].Seq, "the restart left queued messages unstarted: the agent was disposed while it was down; the replay disposes of it at %d ms", d.rel(at))
		}
	case harness.ToolResult:
		// A call never started though its step ran until the crash: the pool was full.
		if n := len(d.steps); n > 0 && data.Error.Code == harness.CodeToolNotStarted {
			if s := d.steps[n-1]; s.turn == data.Turn && s.step == data.Step && s.calls[data.CallID] != nil {
				s.calls[data.CallID].aborted = true
				s.order = append(s.order, data.CallID)
			}
		}
	}
}

// woke reports whether events[i-1] is what starts the turn at events[i]: a send that wakes the
// agent, or the end of a turn the driver goes on from (an aborted turn only when a waking send
// came while it ran: its wake was latched), just before.
func (d *deriver) woke(i int) bool {
	j := i - 1
	for j > 0 && (d.events[j].Type == harness.TypeInboxPush && !waking(d.events[j]) || d.events[j].Type == harness.TypeUserMessage) {
		j-- // sends that wake nothing, since the one that did
	}
	e := d.events[j]
	if d.events[i].Time-e.Time > wakeSlackMs {
		return false
	}
	switch data := e.Data.(type) {
	case harness.InboxPush:
		return waking(e)
	case harness.TurnEnd:
		if data.Reason.Kind != harness.EndAborted {
			return true
		}
		for j := i - 2; j >= 0 && d.events[j].Type != harness.TypeTurnStart; j-- {
			if push, ok := d.events[j].Data.(harness.InboxPush); ok && push.Kind != harness.KindInject {
				return true
			}
		}
	}
	return false
}

// waking reports whether e is the push of a send that wakes the agent: a followup or a steer.
func waking(e harness.Event) bool {
	push, ok := e.Data.(harness.InboxPush)
	return ok && (push.Kind == harness.KindFollowup || push.Kind == harness.KindSteer)
}

// wakeSlackMs is how long a production agent may take from a wake to its turn's start: a turn
// that starts later was woken by something the log does not show.
const wakeSlackMs = 50

// restartWoke is a turn that starts at events[i] with nothing in the log to wake the agent: a
// host restarting it wakes it, so the process died while idle and restarted then. When it died is
// not in the log: the replay kills it 1 ms before.
func (d *deriver) restartWoke(i int) {
	e := d.events[i]
	crashAt := max(e.Time-1, d.events[i-1].Time, d.now)
	d.plan.Actions = append(d.plan.Actions, faults.Action{AtMs: d.rel(crashAt), Kind: faults.ActCrash, RestartAfterMs: e.Time - crashAt})
	d.note(e.Seq, "turn %d starts with nothing in the log to wake the agent: a restart woke it; the replay kills its process while idle at %d ms", e.Data.(harness.TurnStart).Turn, d.rel(crashAt))
	d.newIncarnation()
	d.message = nil
	d.now = max(d.now, e.Time)
}
