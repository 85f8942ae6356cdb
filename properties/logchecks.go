package properties

import (
	"bytes"
	"slices"
	"strings"

	"github.com/turnsim/turnsim/harness"
)

func checkLogReplays(x *index, v *violations) {
	events, err := readBackJSONL(x.run)
	if err != nil {
		v.add(0, -1, "the JSON Lines log does not decode: %v", err)
		return
	}
	if len(events) != len(x.run.Log) {
		v.add(0, -1, "the JSON Lines log holds %d events, the session %d", len(events), len(x.run.Log))
		return
	}
	for i := range events {
		if !sameEvent(&events[i], &x.run.Log[i]) {
			v.add(events[i].Seq, events[i].Time, "event %s reads back differently from what was appended", events[i].Type)
			return
		}
	}
	if err := harness.ValidateLog(events); err != nil {
		var seq int64
		if ie, ok := err.(*harness.InvariantError); ok {
			seq = ie.Seq
		}
		v.add(seq, -1, "the log read back fails the invariant layer: %v", err)
	}
}

func checkAppendsAccepted(x *index, v *violations) {
	for _, e := range x.run.Trace.AgentErrors {
		if e.Invariant != "" && (x.brokenAtMs < 0 || e.AtMs < x.brokenAtMs) {
			v.add(0, e.AtMs, "turn %d: the invariant layer refused an event (rule %s): %s", e.Turn, e.Invariant, e.Err)
		}
	}
}

func checkRunCompletes(x *index, v *violations) {
	for _, f := range x.run.Trace.Findings {
		v.add(0, x.run.Trace.EndMs, "%s", strings.ReplaceAll(f, "\n", "; "))
	}
}

// readBackJSONL decodes r.JSONL (harness.DecodeJSONL: ReadJSONL's answer, faster), taking r.ReadBack's events for the lines it decoded already.
func readBackJSONL(r *Run) ([]harness.Event, error) {
	rb := r.ReadBack
	if rb == nil || len(rb.Bytes) == 0 || !bytes.HasPrefix(r.JSONL, rb.Bytes) {
		return harness.DecodeJSONL(r.JSONL)
	}
	rest, err := harness.DecodeJSONL(r.JSONL[len(rb.Bytes):])
	if err != nil {
		return harness.DecodeJSONL(r.JSONL) // the whole log again: the error names its line
	}
	return append(slices.Clip(rb.Events), rest...), nil
}
