package properties

import (
	"slices"

	"github.com/turnsim/turnsim/harness"
)

// inbox is the inbox rebuilt from the log: each lane's message ids, oldest first. A broken log
// may name a lane other than the two; it is kept apart, so a claim from it is judged against it.
type inbox map[harness.Lane][]string

// remove takes the first message id out of lane, reporting whether it was there.
func (b inbox) remove(lane harness.Lane, id string) bool {
	i := slices.Index(b[lane], id)
	if i < 0 {
		return false
	}
	b[lane] = slices.Delete(b[lane], i, i+1)
	return true
}

// pending is how many messages wait in the two lanes.
func (b inbox) pending() int {
	return len(b[harness.LaneNextTurn]) + len(b[harness.LaneNextStep])
}

// abortedTurnAt returns the running turn that a cancellation had hit when the event at seq was
// written, if any: a waking send then goes to the next-turn lane, and its wake is latched.
func (x *index) abortedTurnAt(seq int64) (*turnIndex, Cancel, bool) {
	atMs := int64(-1)
	if seq >= 1 && int(seq) <= len(x.run.Log) {
		atMs = x.run.Log[seq-1].Time
	}
	for _, t := range x.turnList {
		n := t.number
		if seq < t.startSeq || (t.end != nil && seq > t.endSeq) {
			continue
		}
		if closedAt, refused := x.closeRefusedAt(n); refused && atMs >= closedAt {
			continue // the store refused to close it: it was over all the same (a restart may repair it later)
		}
		if len(t.cancels) > 0 && t.cancels[0].SeqAt < seq {
			return t, t.cancels[0], true
		}
	}
	return nil, Cancel{}, false
}

func checkInboxReplays(x *index, v *violations) {
	b := inbox{}
	said := map[string]bool{} // the ids of the user/messages so far
	// pushedAt is each message's push, and stepEndSeq the last step/end: a message pushed after
	// the turn's last step ended came after its last look at the lane (see TurnEnd below).
	pushedAt := map[string]int64{}
	var stepEndSeq int64
	claimsOpen := false // between a step/start and its first event other than a claim or a send
	var turn, step, nextTurnClaims int
	var owed []string // the next-step lane when the step started: all of it is the step's to claim
	// closeClaims ends the claims of the step at e: the messages owed still in the next-step lane
	// were left unclaimed.
	closeClaims := func(e harness.Event) {
		left := 0
		for _, id := range owed {
			if slices.Contains(b[harness.LaneNextStep], id) {
				left++
			}
		}
		// A cancel that came first keeps (or clears) the inbox: nothing is claimed after it. A crash
		// that struck before the claims were written leaves them to the next turn (crash repair
		// closed this one, interrupted).
		if claimsOpen && left > 0 && !x.refusedIn(turn, step, harness.TypeInboxClaim) && !x.cancelledIn(turn, e.Seq) && !x.interrupted(turn) {
			v.add(e.Seq, e.Time, "turn %d step %d left %d message(s) in the next-step lane unclaimed", turn, step, left)
		}
		claimsOpen = false
	}
	for _, e := range x.run.Log {
		switch e.Data.(type) {
		case harness.InboxClaim, harness.UserMessage, harness.InboxPush:
			// a send (from an observer called back inside the step, say) may come between a
			// step's claims: it does not end them
		default:
			closeClaims(e)
		}
		switch d := e.Data.(type) {
		case harness.UserMessage:
			said[d.Message.ID] = true
		case harness.InboxPush:
			if !said[d.MessageID] {
				v.add(e.Seq, e.Time, "message %s pushed without its user/message", d.MessageID)
			}
			want := harness.LaneNextStep
			switch {
			case d.Kind == harness.KindFollowup:
				want = harness.LaneNextTurn
			case d.Kind == harness.KindSteer:
				if _, _, aborted := x.abortedTurnAt(e.Seq); aborted {
					want = harness.LaneNextTurn // the aborted turn takes no further step
				} else if x.cancelledBeforeTurnAt(e.Seq) {
					want = d.Lane // a phase cancelled before its turn began: either lane, by when the driver left
				}
			}
			if d.Lane != want && (x.run.Traced || d.Kind != harness.KindSteer) { // a log alone cannot tell when a turn was cancelled
				v.add(e.Seq, e.Time, "a %s was pushed to the %s lane, not %s", d.Kind, d.Lane, want)
			}
			b[d.Lane] = append(b[d.Lane], d.MessageID)
			pushedAt[d.MessageID] = e.Seq
		case harness.StepEnd:
			stepEndSeq = e.Seq
		case harness.StepStart:
			turn, step, nextTurnClaims, claimsOpen = d.Turn, d.Step, 0, true
			owed = slices.Clone(b[harness.LaneNextStep])
		case harness.InboxClaim:
			if d.Lane == harness.LaneNextTurn {
				nextTurnClaims++
				if d.Step > 1 || nextTurnClaims > 1 || (len(b[d.Lane]) > 0 && b[d.Lane][0] != d.MessageID) {
					v.add(e.Seq, e.Time, "turn %d step %d claimed next-turn message %s: only a turn's first step takes one, the oldest", d.Turn, d.Step, d.MessageID)
				}
			}
			if !b.remove(d.Lane, d.MessageID) {
				v.add(e.Seq, e.Time, "turn %d step %d claimed %s, which is not in the %s lane", d.Turn, d.Step, d.MessageID, d.Lane)
			}
		case harness.InboxClear:
			if !b.remove(d.Lane, d.MessageID) {
				v.add(e.Seq, e.Time, "cleared %s, which is not in the %s lane", d.MessageID, d.Lane)
			}
		case harness.TurnEnd:
			// A send may land between the turn's last look at the lane and its end (on real
			// goroutines, or at the simulator's preemption point before turn/end): the next turn
			// serves it. One that waited since before the last step ended was overlooked; a log
			// alone is not held to it.
			waiting := 0
			for _, id := range b[harness.LaneNextStep] {
				if pushedAt[id] < stepEndSeq {
					waiting++
				}
			}
			if (d.Reason.Kind == harness.EndCompleted || d.Reason.Kind == harness.EndMaxTokens) && waiting > 0 && x.run.Traced {
				v.add(e.Seq, e.Time, "turn %d ended %s with %d message(s) waiting in the next-step lane since before its last step ended", d.Turn, d.Reason.Kind, waiting)
			}
		}
	}
}

// cancelledIn reports whether a cancellation landed in turn n before the event at seq.
func (x *index) cancelledIn(n int, seq int64) bool {
	t := x.turns[n]
	if t == nil {
		return false
	}
	for _, c := range t.cancels {
		if c.SeqAt < seq {
			return true
		}
	}
	return false
}

// cancelledBeforeTurnAt reports whether, at seq, the last cancellation landed on a running
// phase whose turn had not started (a wake not yet served): no turn/start between it and seq.
func (x *index) cancelledBeforeTurnAt(seq int64) bool {
	var last *Cancel
	for i, c := range x.run.Trace.Cancels {
		if c.Running && c.SeqAt < seq {
			last = &x.run.Trace.Cancels[i]
		}
	}
	if last == nil {
		return false
	}
	for _, t := range x.turnList {
		if t.startSeq > last.SeqAt && t.startSeq < seq {
			return false
		}
	}
	return true
}

// closeRefusedAt returns when the store first refused turn n's step/end or turn/end.
func (x *index) closeRefusedAt(n int) (int64, bool) {
	for _, f := range x.run.Trace.Refusals {
		if f.Turn == n && (f.Type == harness.TypeStepEnd || f.Type == harness.TypeTurnEnd) {
			return f.AtMs, true
		}
	}
	return 0, false
}

// pendingAt is how many messages wait in the inbox's two lanes just before the event at seq:
// the inbox replayed from the log's pushes, claims and clears until the first event whose seq is
// seq or more.
func (x *index) pendingAt(seq int64) int {
	return x.inboxAt(seq).pending()
}

// inboxAt is the inbox just before the event at seq, replayed from the log as pendingAt does.
func (x *index) inboxAt(seq int64) inbox {
	b := inbox{}
	for _, e := range x.run.Log {
		if e.Seq >= seq {
			break
		}
		switch d := e.Data.(type) {
		case harness.InboxPush:
			b[d.Lane] = append(b[d.Lane], d.MessageID)
		case harness.InboxClaim:
			b.remove(d.Lane, d.MessageID)
		case harness.InboxClear:
			b.remove(d.Lane, d.MessageID)
		}
	}
	return b
}

// wakingPushes returns the seqs of the followup and steer pushes in (after, before), in log
// order: an inject never wakes the agent.
func (x *index) wakingPushes(after, before int64) []int64 {
	var seqs []int64
	for _, e := range x.run.Log {
		if e.Seq <= after || e.Seq >= before {
			continue
		}
		if p, ok := e.Data.(harness.InboxPush); ok && p.Kind != harness.KindInject {
			seqs = append(seqs, e.Seq)
		}
	}
	return seqs
}

func checkWakeJustified(x *index, v *violations) {
	var previous *turnIndex
	for _, t := range x.turnList {
		n := t.number
		prev := previous
		previous = t
		if x.restartedBefore(t, prev) {
			continue // a restarted agent wakes itself for the work its log left queued
		}
		if prev != nil && prev.end != nil && x.onlySendsBetween(prev.endSeq, t.startSeq) {
			switch {
			case x.pendingAt(t.startSeq) == 0:
				v.add(t.startSeq, t.startMs, "turn %d started straight after turn %d with nothing in the inbox", n, prev.number)
			case prev.end.Reason.Kind == harness.EndError && !x.claimedIn(prev.number) && len(x.wakingPushes(prev.startSeq, t.startSeq)) == 0:
				// A turn that failed before taking any message would fail the same way again:
				// rerunning it unasked is how a refusing store spins the driver.
				v.add(t.startSeq, t.startMs, "turn %d started straight after turn %d, which failed before taking any message, with no new wake", n, prev.number)
			}
			continue
		}
		after := int64(0)
		if prev != nil {
			after = prev.endSeq
			if prev.end == nil {
				continue // the previous turn never ended: turn-settled reports it
			}
			if _, c, aborted := x.abortedTurnAt(prev.endSeq); aborted {
				after = c.SeqAt // a waking send after the abort was latched
			}
		}
		if len(x.wakingPushes(after, t.startSeq)) == 0 {
			v.add(t.startSeq, t.startMs, "turn %d started although no followup or steer woke the agent", n)
		}
	}
}

// claimedIn reports whether turn n took any message from the inbox.
func (x *index) claimedIn(n int) bool {
	for _, e := range x.run.Log {
		if c, ok := e.Data.(harness.InboxClaim); ok && c.Turn == n {
			return true
		}
	}
	return false
}

// restartedBefore reports whether a restart happened between the previous turn and t.
func (x *index) restartedBefore(t, prev *turnIndex) bool {
	for _, r := range x.run.Trace.Restarts {
		if r.Err == "" && r.AtMs <= t.startMs && (prev == nil || prev.end == nil || r.AtMs >= prev.endMs) {
			return true
		}
	}
	return false
}

func checkLatchedWakeServed(x *index, v *violations) {
	for i, t := range x.turnList {
		n := t.number
		if t.end == nil || t.end.Reason.Kind != harness.EndAborted {
			continue
		}
		cancels := t.cancels
		if len(cancels) == 0 || cancels[0].Kind == harness.CauseDisposed || x.disposedBefore(t.endSeq) {
			continue
		}
		latched := x.wakingPushes(cancels[0].SeqAt, t.endSeq)
		if len(latched) == 0 || x.pendingAt(t.endSeq+1) == 0 {
			continue
		}
		for _, c := range cancels[1:] {
			if !c.KeepInbox {
				latched = nil // a later cancel cleared the inbox and the latch
			}
		}
		// The latch is replayed the moment the aborted turn ends: the next turn starts at that
		// very instant (a crash then aside, which wakes the restarted agent instead).
		servedAt := int64(-1)
		if i+1 < len(x.turnList) {
			servedAt = x.turnList[i+1].startMs
		}
		// The replay is a wake like any other: if the store refused its turn/start, the work
		// stays queued and the next wake serves it (agent/error reports the refusal).
		if len(latched) > 0 && servedAt != t.endMs && !x.crashedAt(t.endMs) && !x.cancelledAt(t.endMs, t.endSeq) && !x.turnStartRefusedAt(t.endMs) {
			v.add(latched[0], t.endMs, "a waking send during aborted turn %d was latched, but no turn started when it ended though its work is queued", n)
		}
	}
}

// turnStartRefusedAt reports whether the store refused a turn/start at atMs.
func (x *index) turnStartRefusedAt(atMs int64) bool {
	for _, r := range x.run.Trace.Refusals {
		if r.Type == harness.TypeTurnStart && r.AtMs == atMs {
			return true
		}
	}
	return false
}

// cancelledAt reports whether a cancellation landed at atMs after the event at seq: it cancels a
// latched wake's replay before its turn can start.
func (x *index) cancelledAt(atMs, seq int64) bool {
	for _, c := range x.run.Trace.Cancels {
		if c.AtMs == atMs && c.SeqAt >= seq && c.Kind != pluginEnd {
			return true
		}
	}
	return false
}

// crashedAt reports whether the agent crashed at atMs.
func (x *index) crashedAt(atMs int64) bool { return x.crashedBetween(atMs, atMs) }

// disposedBefore reports whether the agent was disposed before the event at seq.
func (x *index) disposedBefore(seq int64) bool {
	for _, c := range x.run.Trace.Cancels {
		if c.Kind == harness.CauseDisposed && c.SeqAt < seq {
			return true
		}
	}
	return false
}

// turnFailureSource is the Source a harness.AgentError gives a turn's own failure (its doc: "a
// turn that failed for a reason other than a cancellation"), as against a handler, a turn/end
// that could not be written, or a panicking observer.
const turnFailureSource = "turn"

// checkAgentErrorEmitted holds both halves of a turn failure's report. A turn that ends in error
// reports agent/error to the watchers as it ends, naming the step it failed in (spec, revisions:
// "AgentError names its step"). A turn that was cancelled before its failure was decided ends
// aborted, and a cancellation is not a failure: it reports none; nor does a turn that completes.
func checkAgentErrorEmitted(x *index, v *violations) {
	errs := x.run.Trace.AgentErrors
	for _, t := range x.turnList {
		if t.end == nil {
			continue
		}
		n := t.number
		switch t.end.Reason.Kind {
		case harness.EndError:
			found, named := false, false
			want := x.failedStep(t)
			for _, e := range errs {
				found = found || (e.Turn == n && e.AtMs == t.endMs)
				named = named || (e.Turn == n && e.AtMs == t.endMs && e.Source == turnFailureSource && e.Step == want)
			}
			switch {
			case !found:
				v.add(t.endSeq, t.endMs, "turn %d ended in error (%s) but no agent/error reached the watchers", n, t.end.Reason.Error.Code)
			case want > 0 && !named:
				v.add(t.endSeq, t.endMs, "turn %d failed in step %d (%s), but no agent/error for its failure names that step", n, want, t.end.Reason.Error.Code)
			}
		case harness.EndAborted:
			if len(t.cancels) == 0 {
				continue
			}
			c := t.cancels[0]
			for _, e := range errs {
				// Reported once the log had grown past the cancel: the turn was cancelled before
				// its failure was decided. (A failure decided first, and reported, may still lose
				// to a cancel that lands before turn/end: then nothing was appended in between.)
				if e.Turn == n && e.Source == turnFailureSource && e.SeqAt > c.SeqAt {
					v.add(t.endSeq, e.AtMs, "turn %d was cancelled (%s) before it failed, yet agent/error reported a failure of it: %s", n, c.Kind, e.Err)
					break
				}
			}
		case harness.EndCompleted, harness.EndMaxTokens:
			for _, e := range errs {
				if e.Turn == n && e.Source == turnFailureSource {
					v.add(t.endSeq, e.AtMs, "turn %d ended %s, yet agent/error reported a failure of it: %s", n, t.end.Reason.Kind, e.Err)
					break
				}
			}
		}
	}
}

// failedStep is the step turn t was in when it failed: its last step, opened in the log or
// refused by the store at step/start (the failure is then that step's), or 0 when it opened none.
func (x *index) failedStep(t *turnIndex) int {
	step := 0
	if len(t.stepOrder) > 0 {
		step = t.lastStep() // steps open in order: the invariant layer holds it
	}
	for _, r := range x.run.Trace.Refusals {
		if r.Turn == t.number && r.Type == harness.TypeStepStart {
			step = max(step, r.Step)
		}
	}
	return step
}
