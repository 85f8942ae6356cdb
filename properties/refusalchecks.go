package properties

import (
	"bytes"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/eventjson"
)

// checkRefusedLeavesNoLine is the other half of no-acknowledged-loss: an append the store
// refused was reported to the harness as never written, so its line must be nowhere a reader
// of the log would find it: not in the session's log, not in the JSON Lines written, not in the
// bytes a power loss would leave. A refused event has the seq the next event then takes; its
// line is found at that seq, and only a later accepted append at the same seq may put an equal
// line there.
func checkRefusedLeavesNoLine(x *index, v *violations) {
	var written, durable [][]byte // the byte logs split into lines, once, when a refusal needs them
	for _, r := range x.run.Trace.Refusals {
		refused := r.Event
		if refused.Seq <= 0 || r.SeqRetaken {
			continue
		}
		if i := refused.Seq - 1; i < int64(len(x.run.Log)) && sameEvent(&x.run.Log[i], &refused) {
			v.add(refused.Seq, r.AtMs, "the store refused event %d (%s), but the session's log holds it", refused.Seq, refused.Type)
			continue
		}
		if written == nil {
			written = bytes.SplitAfter(x.run.JSONL, []byte{'\n'})
		}
		if lineHolds(written, &refused) {
			v.add(refused.Seq, r.AtMs, "the store refused event %d (%s), but the JSON Lines log holds its line", refused.Seq, refused.Type)
			continue
		}
		if x.run.Trace.DurableAtEnd == nil {
			continue
		}
		if durable == nil {
			durable = bytes.SplitAfter(x.run.Trace.DurableAtEnd, []byte{'\n'})
		}
		if lineHolds(durable, &refused) {
			v.add(refused.Seq, r.AtMs, "the store refused event %d (%s), but the durable log at the end holds its line: a power loss would bring it back", refused.Seq, refused.Type)
		}
	}
}

// lineHolds reports whether the line of lines at e's seq is a whole line that reads back as e.
func lineHolds(lines [][]byte, e *harness.Event) bool {
	i := e.Seq - 1
	if i >= int64(len(lines)) || !bytes.HasSuffix(lines[i], []byte{'\n'}) {
		return false
	}
	read, err := eventjson.Decode(lines[i])
	return err == nil && len(read) == 1 && sameEvent(&read[0], e)
}
