package properties

import "github.com/turnsim/turnsim/harness"

// A cancellation stops a step's output at once: the harness checks its context before and after
// each streamed chunk and before it logs the assembled message, so a provider stream that goes
// on talking after the cancel (stream-ignores-cancel) must not reach the log. "After" is by
// seq, not by time: several things happen in one virtual millisecond, and a cancel's SeqAt is
// the log's length at that moment, so an event with a larger seq was written after it.

func checkNoOutputAfterCancel(x *index, v *violations) {
	for _, t := range x.turnList {
		n := t.number
		cancels := t.cancels
		if len(cancels) == 0 {
			continue
		}
		first := cancels[0]
		for _, e := range x.run.Log[min(int(first.SeqAt), len(x.run.Log)):] {
			if t.end != nil && e.Seq > t.endSeq {
				break
			}
			switch d := e.Data.(type) {
			case harness.AssistantChunk:
				if d.Turn == n {
					v.add(e.Seq, e.Time, "turn %d step %d: a %s chunk was logged after the %s cancel at +%.3fs (log length %d then)", n, d.Step, d.Chunk.Kind, first.Kind, float64(first.AtMs)/1000, first.SeqAt)
				}
			case harness.AssistantMessage:
				if d.Turn == n {
					v.add(e.Seq, e.Time, "turn %d step %d: the assistant/message was logged after the %s cancel at +%.3fs (log length %d then)", n, d.Step, first.Kind, float64(first.AtMs)/1000, first.SeqAt)
				}
			}
		}
	}
}
