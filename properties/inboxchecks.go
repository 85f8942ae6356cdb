package properties

import (
	"math"
	"slices"

	"github.com/turnsim/turnsim/harness"
)

// inboxLanes is the inbox rebuilt from the log: the two lanes, oldest first, and any other lane
// a broken log names (kept apart, so a claim from it is judged against it). The two lanes are
// an array, not a map's entries: inbox-replays reads the next-step lane at every event. Its
// methods take and return the inbox by value, so lanes that start in arrays on the caller's
// stack stay there (a store through a pointer would move them to the heap).
type inboxLanes struct {
	lanes  [2][]string // by laneIndex
	others map[harness.Lane][]string
}

// laneIndex is lane's place in inboxLanes.lanes: 0 next-turn, 1 next-step, -1 neither.
func laneIndex(lane harness.Lane) int {
	switch lane {
	case harness.LaneNextTurn:
		return 0
	case harness.LaneNextStep:
		return 1
	}
	return -1
}

// push appends message id to lane.
func (b inboxLanes) push(lane harness.Lane, id string) inboxLanes {
	if i := laneIndex(lane); i >= 0 {
		b.lanes[i] = append(b.lanes[i], id)
		return b
	}
	if b.others == nil {
		b.others = map[harness.Lane][]string{}
	}
	b.others[lane] = append(b.others[lane], id)
	return b
}

// remove takes message id out of lane, reporting whether it was there.
func (b inboxLanes) remove(lane harness.Lane, id string) (inboxLanes, bool) {
	var had bool
	if i := laneIndex(lane); i >= 0 {
		b.lanes[i], had = withoutFirst(b.lanes[i], id)
		return b, had
	}
	if ids, had := withoutFirst(b.others[lane], id); had {
		b.others[lane] = ids
		return b, true
	}
	return b, false
}

// withoutFirst returns ids less its first id, and whether it held one.
func withoutFirst(ids []string, id string) ([]string, bool) {
	i := slices.Index(ids, id)
	if i < 0 {
		return ids, false
	}
	return slices.Delete(ids, i, i+1), true
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
		if cancels := x.cancelsOf(t); len(cancels) > 0 && cancels[0].SeqAt < seq {
			return t, cancels[0], true
		}
	}
	return nil, Cancel{}, false
}

func checkInboxReplays(x *index, v *violations) {
	// The lists start on the stack, in arrays that hold a run's few messages.
	var nextTurn, nextStep, saidArray, owedArray [16]string
	b := inboxLanes{lanes: [2][]string{nextTurn[:0], nextStep[:0]}}
	said := saidArray[:0] // the ids of the user/messages so far
	claimsOpen := false   // between a step/start and its first event other than a claim or a send
	var turn, step, nextTurnClaims int
	owed := owedArray[:0] // the next-step lane when the step started: all of it is the step's to claim
	// The log in a local, read in place: x.run.Log reloaded and each event copied at every
	// iteration (and the state shared with a closure, kept in memory) cost more than the checks.
	log := x.run.Log
	for i := range log {
		e := &log[i]
		if claimsOpen { // else there is nothing to close: no need to look at the event twice
			switch e.Data.(type) {
			case harness.InboxClaim, harness.UserMessage, harness.InboxPush:
				// a send (from an observer called back inside the step, say) may come between a
				// step's claims: it does not end them
			default:
				x.closeClaims(v, e, turn, step, owed, b.lanes[1])
				claimsOpen = false
			}
		}
		switch d := e.Data.(type) {
		case harness.UserMessage:
			said = append(said, d.Message.ID)
		case harness.InboxPush:
			if !saidBefore(said, d.MessageID) {
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
			b = b.push(d.Lane, d.MessageID)
		case harness.StepStart:
			turn, step, nextTurnClaims, claimsOpen = d.Turn, d.Step, 0, true
			owed = append(owed[:0], b.lanes[1]...) // the last step's are no longer read
		case harness.InboxClaim:
			if d.Lane == harness.LaneNextTurn {
				nextTurnClaims++
				if d.Step > 1 || nextTurnClaims > 1 || (len(b.lanes[0]) > 0 && b.lanes[0][0] != d.MessageID) {
					v.add(e.Seq, e.Time, "turn %d step %d claimed next-turn message %s: only a turn's first step takes one, the oldest", d.Turn, d.Step, d.MessageID)
				}
			}
			var had bool
			if b, had = b.remove(d.Lane, d.MessageID); !had {
				v.add(e.Seq, e.Time, "turn %d step %d claimed %s, which is not in the %s lane", d.Turn, d.Step, d.MessageID, d.Lane)
			}
		case harness.InboxClear:
			var had bool
			if b, had = b.remove(d.Lane, d.MessageID); !had {
				v.add(e.Seq, e.Time, "cleared %s, which is not in the %s lane", d.MessageID, d.Lane)
			}
		case harness.TurnEnd:
			// In the simulator nothing runs between the turn's last look at the lane and its end;
			// on real goroutines a send may land in between, so a log alone is not held to it.
			if (d.Reason.Kind == harness.EndCompleted || d.Reason.Kind == harness.EndMaxTokens) && len(b.lanes[1]) > 0 && x.run.Traced {
				v.add(e.Seq, e.Time, "turn %d ended %s with %d message(s) waiting in the next-step lane", d.Turn, d.Reason.Kind, len(b.lanes[1]))
			}
		}
	}
}

// closeClaims ends the claims of turn's step at e, its first event other than a claim or a
// send: the messages owed (the next-step lane when the step started) still in the next-step
// lane were left unclaimed.
func (x *index) closeClaims(v *violations, e *harness.Event, turn, step int, owed, nextStep []string) {
	left := 0
	for _, id := range owed {
		if slices.Contains(nextStep, id) {
			left++
		}
	}
	// A cancel that came first keeps (or clears) the inbox: nothing is claimed after it. A crash
	// that struck before the claims were written leaves them to the next turn (crash repair
	// closed this one, interrupted).
	if left > 0 && !x.refusedIn(turn, step, harness.TypeInboxClaim) && !x.cancelledIn(turn, e.Seq) && !x.interrupted(turn) {
		v.add(e.Seq, e.Time, "turn %d step %d left %d message(s) in the next-step lane unclaimed", turn, step, left)
	}
}

// saidBefore reports whether id is among the ids of the user/messages said: searched from the
// newest, since a push follows its own user/message.
func saidBefore(said []string, id string) bool {
	for i := len(said) - 1; i >= 0; i-- {
		if said[i] == id {
			return true
		}
	}
	return false
}

// cancelledIn reports whether a cancellation landed in turn n before the event at seq.
func (x *index) cancelledIn(n int, seq int64) bool {
	t := x.turn(n)
	if t == nil {
		return false
	}
	for _, c := range x.cancelsOf(t) {
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
// replayedInbox's pending count after the log's pushes, claims and clears until then. It replays
// on two lanes of its own, not a fresh inbox and its two maps, since its callers ask only for the
// count (wake-justified and latched-wake-served, for each turn). A lane other than
// the two is not counted, so its pushes and removals are skipped. The lanes start on the stack,
// in arrays that hold a run's few messages. Only the log's inbox events (the index's inbox) are
// replayed: the others change no lane, and they were most of the walk.
func (x *index) pendingAt(seq int64) int {
	var nextTurn, nextStep [16]string
	lanes := [2][]string{nextTurn[:0], nextStep[:0]}
	before := 0 // the events before the first whose seq is seq or more: none before MinInt64
	if seq != math.MinInt64 {
		before = x.logIndexAfter(0, seq-1) // seq-1 would wrap around to MaxInt64
	}
	for _, i := range x.inbox {
		if i >= before {
			break
		}
		var lane harness.Lane
		var id string
		switch d := x.run.Log[i].Data.(type) {
		case harness.InboxPush:
			if i := laneIndex(d.Lane); i >= 0 {
				lanes[i] = append(lanes[i], d.MessageID)
			}
			continue
		case harness.InboxClaim:
			lane, id = d.Lane, d.MessageID
		case harness.InboxClear:
			lane, id = d.Lane, d.MessageID
		default:
			continue
		}
		if l := laneIndex(lane); l >= 0 {
			lanes[l], _ = withoutFirst(lanes[l], id)
		}
	}
	return len(lanes[0]) + len(lanes[1])
}

// firstWakingPush returns the seq of the first followup or steer push in (after, before), in
// log order; ok is false if there is none. (Its callers ask whether one woke the agent, and
// which to blame: never for the list of them.)
func (x *index) firstWakingPush(after, before int64) (seq int64, ok bool) {
	for _, i := range x.inbox {
		e := &x.run.Log[i]
		if e.Seq <= after || e.Seq >= before {
			continue
		}
		if p, isPush := e.Data.(harness.InboxPush); isPush && p.Kind != harness.KindInject {
			return e.Seq, true
		}
	}
	return 0, false
}

// wokenBetween reports whether a followup or steer push lies in (after, before).
func (x *index) wokenBetween(after, before int64) bool {
	_, ok := x.firstWakingPush(after, before)
	return ok
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
			case prev.end.Reason.Kind == harness.EndError && !x.claimedIn(prev.number) && !x.wokenBetween(prev.startSeq, t.startSeq):
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
		if !x.wokenBetween(after, t.startSeq) {
			v.add(t.startSeq, t.startMs, "turn %d started although no followup or steer woke the agent", n)
		}
	}
}

// claimedIn reports whether turn n took any message from the inbox.
func (x *index) claimedIn(n int) bool {
	for _, i := range x.inbox {
		if c, ok := x.run.Log[i].Data.(harness.InboxClaim); ok && c.Turn == n {
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
		cancels := x.cancelsOf(t)
		if len(cancels) == 0 || cancels[0].Kind == harness.CauseDisposed || x.disposedBefore(t.endSeq) {
			continue
		}
		latchedSeq, latched := x.firstWakingPush(cancels[0].SeqAt, t.endSeq)
		if !latched || x.pendingAt(t.endSeq+1) == 0 {
			continue
		}
		for _, c := range cancels[1:] {
			if !c.KeepInbox {
				latched = false // a later cancel cleared the inbox and the latch
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
		if latched && servedAt != t.endMs && !x.crashedAt(t.endMs) && !x.cancelledAt(t.endMs, t.endSeq) && !x.turnStartRefusedAt(t.endMs) {
			v.add(latchedSeq, t.endMs, "a waking send during aborted turn %d was latched, but no turn started when it ended though its work is queued", n)
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
func (x *index) crashedAt(atMs int64) bool {
	for _, c := range x.run.Trace.Crashes {
		if c.AtMs == atMs {
			return true
		}
	}
	return false
}

// disposedBefore reports whether the agent was disposed before the event at seq.
func (x *index) disposedBefore(seq int64) bool {
	for _, c := range x.run.Trace.Cancels {
		if c.Kind == harness.CauseDisposed && c.SeqAt < seq {
			return true
		}
	}
	return false
}

func checkAgentErrorEmitted(x *index, v *violations) {
	for _, t := range x.turnList {
		n := t.number
		if t.end == nil || t.end.Reason.Kind != harness.EndError {
			continue
		}
		found := false
		for _, e := range x.run.Trace.AgentErrors {
			found = found || (e.Turn == n && e.AtMs == t.endMs)
		}
		if !found {
			v.add(t.endSeq, t.endMs, "turn %d ended in error (%s) but no agent/error reached the watchers", n, t.end.Reason.Error.Code)
		}
	}
}
