package sim

import (
	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
)

// The replay's clock, predicted. A production agent takes time the simulator does not: each
// append syncs the file, a timer fires a little late, a tool or a backoff runs past its planned
// end. The replay's agent, with none of that, runs a little ahead of the incident's, and a user's
// send that came just before one of its events could land just after it: the order would differ.
// So the derivation follows the time at which the replay will write each event (what the plan
// fixes: a send at its time, a delivery after its delay, a backoff after its delay, a planned tool
// after its latency, anything else at once), and makes the waits it chooses (a request's
// deliveries, a user's tool, a restart) end at the incident's times from there, not from the
// incident's own start; and a send that the replay's agent would overtake is moved just before
// the event it preceded. Times move by a few milliseconds; the order holds.

// wakeLost is a send that woke the idle agent, and no turn started: the agent had been disposed
// of (or its process died) just then. The replay disposes of it at the wake, after the send.
func (d *deriver) wakeLost(seq int64) {
	d.plan.Actions = append(d.plan.Actions, faults.Action{AtMs: d.rel(d.wakeMs), Kind: faults.ActDispose})
	d.note(seq, "a send woke the idle agent at %d ms and no turn started: it had been disposed of (or its process died) then; the replay disposes of it", d.rel(d.wakeMs))
	d.wakeMs = -1
}

// driftMaxMs is how far ahead of the incident's agent the replay's may run before the
// derivation takes it that the incident's was held back by what the log does not show.
const driftMaxMs = 50

// userAction adds a user's action (a send, a cancel that clears) at its time, as one the agent's
// next event may move earlier.
func (d *deriver) userAction(a faults.Action) {
	if d.wakeMs >= 0 {
		// The agent was woken and its turn has not started: in the replay it starts at the
		// wake, so what the user did before it must come at the wake too, right after it.
		a.AtMs = d.rel(d.wakeMs)
	}
	d.plan.Actions = append(d.plan.Actions, a)
	d.sends = append(d.sends, len(d.plan.Actions)-1)
}

// written moves the clock past e, written by the replay at d.now. An agent's event the replay
// writes before a send that preceded it in the log takes the send back to just before it (but
// not before the agent's event before that).
func (d *deriver) written(e harness.Event) {
	d.simMs = max(d.simMs, d.now)
	if userEvent(e) {
		return
	}
	if d.wakeMs >= 0 && e.Type != harness.TypeTurnStart {
		d.wakeLost(e.Seq)
	}
	if d.consequence[e.Seq] {
		// A cancel's doing: it follows the user's calls before it, whichever ended the turn.
		d.now = max(d.now, d.simMs)
		d.simMs = d.now
		d.sends = d.sends[:0]
		d.agentMs, d.wakeMs = d.now, -1
		return
	}
	overtaken := d.sends[:0:0]
	for _, k := range d.sends {
		if a := &d.plan.Actions[k]; a.AtMs+d.origin > d.now {
			overtaken = append(overtaken, k)
		}
	}
	if len(overtaken) > 0 && d.simMs-d.now > driftMaxMs {
		// Far later than the replay would write it: something the log does not show (a plugin's
		// end, a slow disk) held it back. It comes at its own time, after the sends.
		d.now = max(d.now, e.Time, d.simMs)
		overtaken = overtaken[:0]
	}
	for _, k := range overtaken {
		d.plan.Actions[k].AtMs = d.rel(max(d.agentMs, d.now-1))
	}
	d.sends = d.sends[:0]
	d.agentMs, d.lastProgressMs = d.now, d.now
	d.wakeMs = -1
}

// findConsequences marks the events a cancel writes when it ends a turn: the synthetic results
// of calls never started, the step's end and the turn's. The replay writes them when the cancel
// strikes, after whatever the user did just before.
func (d *deriver) findConsequences() {
	d.consequence = map[int64]bool{}
	for i, e := range d.events {
		end, ok := e.Data.(harness.TurnEnd)
		if !ok || end.Reason.Kind != harness.EndAborted {
			continue
		}
		d.consequence[e.Seq] = true
		for j := i - 1; j >= 0; j-- {
			x := d.events[j]
			if userEvent(x) {
				continue
			}
			r, isResult := x.Data.(harness.ToolResult)
			synthetic := isResult && r.Error != nil && r.Error.Code == harness.CodeToolAbortedBeforeDispatch || x.Type == harness.TypeToolCall && d.synthetic(j)
			if x.Type != harness.TypeStepEnd && !synthetic {
				break
			}
			d.consequence[x.Seq] = true
		}
	}
}

// userEvent reports whether e is written by a user's call (a send, a cancel's clear) rather than
// by the agent's own tasks.
func userEvent(e harness.Event) bool {
	switch e.Type {
	case harness.TypeUserMessage, harness.TypeInboxPush, harness.TypeInboxClear:
		return true
	}
	return false
}
