package properties

import (
	"math"

	"github.com/turnsim/turnsim/harness"
)

// A wake while a failed turn winds down. A turn that failed before it took any message (the
// store refused its turn/start, its step/start or its first claim) must not be rerun at once on the same
// messages, or a store that keeps refusing would spin the driver: the agent goes idle and waits
// for the next wake. A waking send that comes meanwhile, while that turn runs or between its
// turn/end and the driver's decision, is that next wake: it must not be lost in the instant the
// driver decides to stop.

// checkFailedTurnWakeServed: after a turn that ended in error having claimed nothing, the first
// waking send before the next turn starts a turn in its instant (at the failed turn's end, for a
// send while it ran), unless the store refused that turn/start, a cancel, a crash or a disposal
// came in the same instant, or the agent was disposed.
func checkFailedTurnWakeServed(x *index, v *violations) {
	if !x.run.Traced {
		return // which instant a send came in is the trace's to say
	}
	for i, t := range x.turnList {
		if t.end == nil || t.end.Reason.Kind != harness.EndError || x.claimedIn(t.number) {
			continue
		}
		nextStart, nextStartMs := int64(math.MaxInt64), int64(-1)
		if i+1 < len(x.turnList) {
			nextStart, nextStartMs = x.turnList[i+1].startSeq, x.turnList[i+1].startMs
		}
		pushes := x.wakingPushes(t.startSeq, nextStart)
		if len(pushes) == 0 {
			continue
		}
		pushSeq := pushes[0]
		dueMs, afterSeq := t.endMs, t.endSeq // a send while the turn ran: the loop goes on at its end
		if pushSeq > t.endSeq {
			dueMs, afterSeq = x.timeOf(pushSeq), pushSeq
		}
		if nextStartMs == dueMs || x.disposedBefore(afterSeq+1) || x.crashedAt(dueMs) || x.cancelledAt(dueMs, afterSeq) || x.turnStartRefusedAt(dueMs) || x.duringMaintenance(pushSeq) {
			continue
		}
		v.add(pushSeq, dueMs, "turn %d failed before its first claim, a waking send came as it wound down (event %d), and no turn started at +%.3fs: the wake was lost", t.number, pushSeq, float64(dueMs-x.run.StartMs)/1000)
	}
	checkUnopenedTurnWakeServed(x, v)
}

// checkUnopenedTurnWakeServed is the same for a turn whose turn/start the store refused: it left
// nothing in the log but the trace's refusal, and it winds down in the refusal's instant. A waking
// send in that instant, after the refusal, must start a turn in that instant too, unless that
// turn/start was refused again or a cancel, a crash or a disposal came.
func checkUnopenedTurnWakeServed(x *index, v *violations) {
	for i, r := range x.run.Trace.Refusals {
		if r.Type != harness.TypeTurnStart || r.Event.Seq == 0 {
			continue
		}
		var pushSeq int64
		for _, seq := range x.wakingPushes(r.Event.Seq-1, math.MaxInt64) {
			if x.timeOf(seq) == r.AtMs {
				pushSeq = seq
				break
			}
		}
		if pushSeq == 0 || x.disposedBefore(pushSeq+1) || x.crashedAt(r.AtMs) || x.cancelledAt(r.AtMs, pushSeq) || x.turnStartRefusedAfter(i) || x.duringMaintenance(pushSeq) {
			continue
		}
		if !x.turnStartedAt(r.AtMs, pushSeq) {
			v.add(pushSeq, r.AtMs, "the store refused a turn/start, a waking send came as that unopened turn wound down (event %d), and no turn started at +%.3fs: the wake was lost", pushSeq, float64(r.AtMs-x.run.StartMs)/1000)
		}
	}
}

// turnStartRefusedAfter reports whether another turn/start was refused in the instant of the
// i-th refusal, after it.
func (x *index) turnStartRefusedAfter(i int) bool {
	r := x.run.Trace.Refusals[i]
	for _, other := range x.run.Trace.Refusals[i+1:] {
		if other.Type == harness.TypeTurnStart && other.AtMs == r.AtMs {
			return true
		}
	}
	return false
}

// turnStartedAt reports whether a turn started at atMs after the event at seq.
func (x *index) turnStartedAt(atMs, seq int64) bool {
	for _, t := range x.turnList {
		if t.startSeq > seq && t.startMs == atMs {
			return true
		}
	}
	return false
}

// timeOf is the time of the log's event seq.
func (x *index) timeOf(seq int64) int64 {
	for _, e := range x.run.Log {
		if e.Seq == seq {
			return e.Time
		}
	}
	return -1
}

// checkWorkLeftServed: after a turn, the next-turn work still queued starts another turn in the
// instant the turn ended, under a fresh cancellation (spec, phases: "After a turn, pending next-turn work
// starts another turn"). Not after a turn that was aborted (its cancellation stops the loop; a
// wake latched meanwhile is latched-wake-served's), nor after one that failed before it took
// any message (it waits for the next wake, one while it ran included: failed-turn-wake-served
// judges that), nor once the session broke, the agent was disposed or crashed, or a cancel or a
// refused turn/start came in that instant. The cheap tests come first: the log is replayed last.
func checkWorkLeftServed(x *index, v *violations) {
	if !x.run.Traced || len(x.run.Trace.Findings) > 0 {
		return // which instant a cancel or a crash came is the trace's to say
	}
	for i, t := range x.turnList {
		if t.end == nil || t.end.Reason.Kind == harness.EndAborted || t.end.Reason.Kind == harness.EndInterrupted ||
			i+1 < len(x.turnList) && x.turnList[i+1].startMs == t.endMs {
			continue
		}
		if (x.brokenAtMs >= 0 && x.brokenAtMs <= t.endMs) || x.disposedBefore(t.endSeq+1) || x.crashedAt(t.endMs) ||
			x.cancelledAt(t.endMs, t.endSeq) || x.turnStartRefusedAt(t.endMs) {
			continue
		}
		if t.end.Reason.Kind == harness.EndError && !x.claimedIn(t.number) {
			continue
		}
		queued := len(x.inboxAt(t.endSeq + 1)[harness.LaneNextTurn])
		if queued == 0 {
			continue
		}
		v.add(t.endSeq, t.endMs, "turn %d ended %s with %d next-turn message(s) still queued, and no turn started in that instant: the work was left idle", t.number, t.end.Reason.Kind, queued)
	}
}
