package properties

import (
	"strings"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/eventjson"
)

// checkLogReplays reads the run's JSON Lines back as any reader of the log would and holds what
// it gets to what was appended, event for event; then replays it through the invariant layer.
func checkLogReplays(x *index, v *violations) {
	readBack, err := eventjson.Decode(x.run.JSONL)
	if err != nil {
		v.add(0, -1, "the JSON Lines log does not decode: %v", err)
		return
	}
	log := x.run.Log
	if len(readBack) != len(log) {
		v.add(0, -1, "the JSON Lines log holds %d events, the session %d", len(readBack), len(log))
		return
	}
	for i := range readBack {
		if !sameEvent(&readBack[i], &log[i]) {
			v.add(readBack[i].Seq, readBack[i].Time, "event %s reads back differently from what was appended", readBack[i].Type)
			return
		}
	}
	if err := harness.ValidateLog(readBack); err != nil {
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
