package properties

import (
	"strings"

	"github.com/turnsim/turnsim/harness"
)

func checkTurnSettled(x *index, v *violations) {
	for _, t := range x.turnList {
		n := t.number
		if t.end == nil && !x.unsettleable(n) {
			v.add(t.startSeq, t.startMs, "turn %d started but never ended", n)
		}
	}
}

func checkLiveness(x *index, v *violations) {
	r := x.run
	deadline := r.StartMs + r.HorizonMs + r.LivenessBoundMs
	if r.Trace.IdleAtMs < 0 {
		v.add(0, deadline, "the agent was not idle %d ms after the horizon (+%.3fs)", r.LivenessBoundMs, float64(r.HorizonMs)/1000)
		return
	}
	if r.Trace.IdleAtMs > deadline {
		v.add(0, r.Trace.IdleAtMs, "the agent settled only at +%.3fs, after the deadline +%.3fs", float64(r.Trace.IdleAtMs)/1000, float64(deadline)/1000)
	}
	if x.brokenAtMs >= 0 {
		return // a broken session cannot close its turn; turn-settled says so where it is owed
	}
	for _, t := range x.turnList {
		if t.end == nil {
			v.add(t.startSeq, r.Trace.IdleAtMs, "turn %d is still open when the agent reads idle", t.number)
		}
	}
}

func checkAbortCause(x *index, v *violations) {
	for _, t := range x.turnList {
		n := t.number
		if t.end == nil {
			continue
		}
		if t.end.Reason.Kind == harness.EndInterrupted {
			continue // the process died before the cancellation could settle the turn
		}
		cancels := t.cancels
		aborted := t.end.Reason.Kind == harness.EndAborted
		switch {
		case len(cancels) == 0 && aborted:
			v.add(t.endSeq, t.endMs, "turn %d ended aborted(%s) but nothing cancelled it", n, t.end.Reason.Reason.Kind)
		case len(cancels) > 0 && !aborted:
			v.add(t.endSeq, t.endMs, "turn %d was cancelled (%s at +%.3fs) but ended %s", n, cancels[0].Kind, float64(cancels[0].AtMs)/1000, t.end.Reason.Kind)
		case len(cancels) > 0 && aborted:
			want, got := cancels[0], t.end.Reason.Reason
			if got == nil || got.Kind != want.Kind || got.Reason != want.Reason {
				v.add(t.endSeq, t.endMs, "turn %d ended aborted with cause %+v, but the first cancellation was %s %q", n, got, want.Kind, want.Reason)
			}
		}
	}
}

func checkMaxTokensSticky(x *index, v *violations) {
	for _, t := range x.turnList {
		n := t.number
		if t.end == nil {
			continue
		}
		switch kind := t.end.Reason.Kind; {
		case kind == harness.EndCompleted && t.maxTokens:
			v.add(t.endSeq, t.endMs, "turn %d ended completed although a step ended max-tokens", n)
		case kind == harness.EndMaxTokens && !t.maxTokens:
			v.add(t.endSeq, t.endMs, "turn %d ended max-tokens although no step did", n)
		}
	}
}

// checkMaxTokensCommitsText: a step cut off at max-tokens commits text only (spec, revisions):
// its assistant/message keeps the text blocks and drops the truncated tool-call blocks, so that
// neither a reader of the log nor a restart rebuilding the conversation from it meets a call
// that was never run.
func checkMaxTokensCommitsText(x *index, v *violations) {
	x.eachStep(func(t *turnIndex, step int, s *stepIndex) {
		if s.message == nil || s.message.Finish != harness.FinishMaxTokens {
			return
		}
		for _, b := range s.message.Message.Blocks {
			if b.Type != harness.BlockText {
				v.add(s.messageSeq, x.timeOf(s.messageSeq), "turn %d step %d was cut off at max-tokens, yet its assistant/message keeps a %s block (%s): a truncated answer commits its text only", t.number, step, b.Type, b.CallID)
				return
			}
		}
	})
}

func checkNoWakeAfterDispose(x *index, v *violations) {
	disposedAt, disposedAction := int64(-1), 0
	var disposedMs int64
	for _, c := range x.run.Trace.Cancels {
		if c.Kind == harness.CauseDisposed {
			disposedAt, disposedMs, disposedAction = c.SeqAt, c.AtMs, c.Action
			break
		}
	}
	if disposedAt < 0 {
		return
	}
	for _, t := range x.turnList {
		if t.startSeq > disposedAt {
			v.add(t.startSeq, t.startMs, "turn %d started after Dispose at +%.3fs", t.number, float64(disposedMs)/1000)
		}
	}
	for _, s := range x.run.Trace.Sends {
		if s.Action > disposedAction && !strings.Contains(s.Err, "disposed") {
			v.add(0, s.AtMs, "a %s sent after Dispose was accepted (error %q)", s.Kind, s.Err)
		}
	}
}

// idleBetween reports whether the log shows an instant in (from, to] with no turn open: when
// the turn open at from (if any) ended by to.
func (x *index) idleBetween(from, to int64) bool {
	for _, t := range x.turnList {
		n := t.number
		if t.startSeq <= from && (t.end == nil || t.endSeq > from) {
			// A turn whose step/end or turn/end the store refused is over all the same: the driver
			// left it (the session is broken), so the agent may be idle with it open in the log.
			return (t.end != nil && t.endSeq <= to) || x.unsettleable(n)
		}
	}
	return true
}

func checkWhenIdleSettled(x *index, v *violations) {
	for _, r := range x.run.Trace.IdleReturns {
		// A new turn may have started in the instant between the idle moment and the watcher's
		// look: WhenIdle promises an idle instant after the call, not idleness at return.
		if (r.ToolsRunning > 0 || r.Running) && !x.idleBetween(r.StartSeq, r.SeqAt) {
			v.add(0, r.AtMs, "WhenIdle returned with %d tool call(s) running and a turn running=%v", r.ToolsRunning, r.Running)
		}
	}
}
