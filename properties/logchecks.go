package properties

import (
	"bytes"
	"reflect"
	"strings"

	"github.com/turnsim/turnsim/harness"
)

func checkLogReplays(x *index, v *violations) {
	events, err := harness.ReadJSONL(bytes.NewReader(x.run.JSONL))
	if err != nil {
		v.add(0, -1, "the JSON Lines log does not decode: %v", err)
		return
	}
	if len(events) != len(x.run.Log) {
		v.add(0, -1, "the JSON Lines log holds %d events, the session %d", len(events), len(x.run.Log))
		return
	}
	for i := range events {
		if !reflect.DeepEqual(&events[i], &x.run.Log[i]) { // pointers: no copy of each event into an interface
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
