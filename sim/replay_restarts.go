package sim

import (
	"strings"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
)

// Restarts in a derivation: crash repair's events mark a crash (the dead process's last event
// before them, the restart when they were written), and a restart the log shows only by what it
// did (a turn nobody woke, a fresh llm-retry plugin, queued work a restart left alone) is one too.
// A restart wakes the agent, as a host does; each incarnation has its own random source and
// llm-retry plugin.

// wakeSlackMs is how long a production agent may take from a wake to its turn's start: a turn
// that starts later was woken by something the log does not show.
const wakeSlackMs = 50

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
