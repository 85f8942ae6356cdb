package properties

import (
	"slices"
	"strings"
)

// The session's observers: what the harness promises whoever watches its log (Session.Append's
// doc; spec, revisions: "Observers may call back").

// checkObserversShownEveryEvent: a session observer is shown every event the session logs, once,
// in log order, from the moment it was attached; by the time the run is over, the last one too
// (unless the run did not complete, or the incarnation died: a crash may cut a delivery short).
func checkObserversShownEveryEvent(x *index, v *violations) {
	for i, o := range x.run.Trace.Observed {
		next := o.FromSeq + 1
		broken := false
		for _, seq := range o.Shown {
			if seq != next {
				v.add(seq, x.timeOf(seq), "incarnation %d's session observer was shown event %d when event %d was the next it had not seen: an observer is shown every event once, in log order", i+1, seq, next)
				broken = true
				break
			}
			next++
		}
		if !broken && o.Up && len(x.run.Trace.Findings) == 0 && next <= int64(len(x.run.Log)) {
			v.add(next, x.timeOf(next), "the run ended with events %d to %d never shown to the session observer of incarnation %d: an observer is shown each event before its append returns", next, len(x.run.Log), i+1)
		}
	}
}

// checkObserverPanicReported: a session observer that panics is contained, and its panic is
// reported as agent/error in that instant, naming what it panicked with (the turn still settles:
// turn-settled holds that).
func checkObserverPanicReported(x *index, v *violations) {
	for _, p := range x.run.Trace.ObserverPanics {
		if !slices.ContainsFunc(x.run.Trace.AgentErrors, func(e AgentError) bool { return e.AtMs == p.AtMs && strings.Contains(e.Err, p.Value) }) {
			v.add(p.Seq, p.AtMs, "a session observer panicked on event %d (%q), and no agent/error reported it", p.Seq, p.Value)
		}
	}
}

// checkHandlerFailureReported: a request-error handler that fails is reported to the watchers as
// agent/error, in the instant it failed, naming the turn, the step and its error (the handler
// contract: "A handler that returns an error gives no retry; the error is reported to watchers").
func checkHandlerFailureReported(x *index, v *violations) {
	for _, f := range x.run.Trace.HandlerFailures {
		if !slices.ContainsFunc(x.run.Trace.AgentErrors, func(e AgentError) bool {
			return e.AtMs == f.AtMs && e.Turn == f.Turn && e.Step == f.Step && strings.Contains(e.Err, f.Err)
		}) {
			v.add(0, f.AtMs, "turn %d step %d: a request-error handler failed (%s), and no agent/error reported it", f.Turn, f.Step, f.Err)
		}
	}
}

// checkHandlerFailureGivesNoRetry: a handler that fails gives no retry, whatever it answered with
// its error. The step's request is sent again only if the llm-retry plugin above it, once its
// answer came back empty, retried on its own (an llm/retry for the step, from that instant on).
func checkHandlerFailureGivesNoRetry(x *index, v *violations) {
	for _, f := range x.run.Trace.HandlerFailures {
		for _, q := range x.run.Trace.Requests {
			if q.Turn != f.Turn || q.Step != f.Step || q.Attempt != f.Attempt+1 {
				continue
			}
			retried := false
			for _, r := range x.retries {
				retried = retried || (r.data.Turn == f.Turn && r.data.Step == f.Step && r.timeMs >= f.AtMs && r.timeMs <= q.StartMs)
			}
			if !retried {
				v.add(0, q.StartMs, "turn %d step %d: attempt %d was sent on the word of a request-error handler that failed (%s) at +%.3fs, with no llm/retry of its own", f.Turn, f.Step, q.Attempt, f.Err, float64(f.AtMs-x.run.StartMs)/1000)
			}
		}
	}
}
