package properties

import "github.com/turnsim/turnsim/harness"

// Sends may land anywhere: a session observer that calls the agent back (the observer-callback
// fault) sends from inside the turn loop's own appends, so a user's events can sit between two
// events the harness writes back to back. These helpers let the properties look past them.

// userEvent reports whether e is a user's send or its inbox bookkeeping, not the turn loop's.
func userEvent(e harness.Event) bool {
	switch e.Data.(type) {
	case harness.UserMessage, harness.InboxPush, harness.InboxClear:
		return true
	}
	return false
}

// waitAnchor is the seq of the last event the turn loop wrote before wait w began: the log's
// length then, less any sends an observer made in between.
func (x *index) waitAnchor(w Wait) int64 {
	seq := w.SeqBefore
	for seq >= 1 && int(seq) <= len(x.run.Log) && userEvent(x.run.Log[seq-1]) {
		seq--
	}
	return seq
}

// onlySendsBetween reports whether nothing but sends lies strictly between the events at seqs
// from and to: the turn loop went straight from one to the other.
func (x *index) onlySendsBetween(from, to int64) bool {
	for seq := from + 1; seq < to; seq++ {
		if seq < 1 || int(seq) > len(x.run.Log) || !userEvent(x.run.Log[seq-1]) {
			return false
		}
	}
	return from < to
}
