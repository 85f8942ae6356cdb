package properties

import (
	"bytes"
	"strings"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/eventjson"
)

func checkLogReplays(x *index, v *violations) {
	readBack, decoded, err := readBackJSONL(&x.run)
	if err != nil {
		v.add(0, -1, "the JSON Lines log does not decode: %v", err)
		return
	}
	log := x.run.Log
	if n := len(readBack) + len(decoded); n != len(log) {
		v.add(0, -1, "the JSON Lines log holds %d events, the session %d", n, len(log))
		return
	}
	for _, part := range [2][]harness.Event{readBack, decoded} {
		for i := range part {
			if !sameEvent(&part[i], &log[i]) {
				v.add(part[i].Seq, part[i].Time, "event %s reads back differently from what was appended", part[i].Type)
				return
			}
		}
		log = log[len(part):]
	}
	// The events read back are deeply equal to the session's, and the invariant layer judges
	// events by their values: replaying the session's is replaying them, without first joining
	// the read-back's and the decoded ones into one slice.
	if err := harness.ValidateLog(x.run.Log); err != nil {
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

// readBackJSONL decodes r.JSONL (eventjson.Decode): readBack is r.ReadBack's events, for the
// lines it decoded already (nil when it covers none), and decoded the decoding of the lines after
// them. Lines the read-back covers to the end are not decoded again.
func readBackJSONL(r *Run) (readBack, decoded []harness.Event, err error) {
	rb := r.ReadBack
	if rb == nil || len(rb.Bytes) == 0 || !bytes.HasPrefix(r.JSONL, rb.Bytes) {
		decoded, err = eventjson.Decode(r.JSONL)
		return nil, decoded, err
	}
	if len(r.JSONL) == len(rb.Bytes) {
		return rb.Events, nil, nil
	}
	decoded, err = eventjson.Decode(r.JSONL[len(rb.Bytes):])
	if err != nil {
		// The whole log again: its error names its line (and a read-back that ended inside a
		// line leaves a rest that alone does not decode).
		decoded, err = eventjson.Decode(r.JSONL)
		return nil, decoded, err
	}
	return rb.Events, decoded, nil
}
