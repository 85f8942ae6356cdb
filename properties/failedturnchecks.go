package properties

import (
	"math"

	"github.com/turnsim/turnsim/harness"
)

// A wake while a failed turn winds down. A turn that failed before it took any message (the
// store refused its step/start or its first claim) must not be rerun at once on the same
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
		if nextStartMs == dueMs || x.disposedBefore(afterSeq+1) || x.crashedAt(dueMs) || x.cancelledAt(dueMs, afterSeq) || x.turnStartRefusedAt(dueMs) {
			continue
		}
		v.add(pushSeq, dueMs, "turn %d failed before its first claim, a waking send came as it wound down (event %d), and no turn started at +%.3fs: the wake was lost", t.number, pushSeq, float64(dueMs-x.run.StartMs)/1000)
	}
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
