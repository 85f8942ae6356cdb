package properties

import (
	"slices"
	"strings"

	"github.com/turnsim/turnsim/harness"
)

// Cancel(cause, keepInbox) clears the inbox unless keepInbox, logging inbox/clear for each
// message it drops; Dispose keeps the inbox. The clears are written inside the cancel, right
// after the log's length SeqAt that the trace recorded for it, so they are the run of
// inbox/clear events that follows SeqAt. A cancel that found the agent down did nothing.

// queuedAt returns the messages queued (pushed, neither claimed nor cleared) once the log's
// events up to seq seqAt were written: the log replayed until its first event past seqAt.
func (x *index) queuedAt(seqAt int64) []string {
	var queued []string
	for _, e := range x.run.Log {
		if e.Seq > seqAt {
			break
		}
		switch d := e.Data.(type) {
		case harness.InboxPush:
			queued = append(queued, d.MessageID)
		case harness.InboxClaim:
			queued = slices.DeleteFunc(queued, func(id string) bool { return id == d.MessageID })
		case harness.InboxClear:
			queued = slices.DeleteFunc(queued, func(id string) bool { return id == d.MessageID })
		}
	}
	return queued
}

// clearsAfter returns the run of inbox/clear events that follows seqAt: a part of the log, for
// reading only.
func (x *index) clearsAfter(seqAt int64) []harness.Event {
	after := x.run.Log[min(int(seqAt), len(x.run.Log)):]
	for i, e := range after {
		if e.Type != harness.TypeInboxClear {
			return after[:i]
		}
	}
	return after
}

// refusedClearsAt counts the inbox/clear appends the store refused at atMs: each leaves its
// message queued.
func (x *index) refusedClearsAt(atMs int64) int {
	n := 0
	for _, f := range x.run.Trace.Refusals {
		if f.Type == harness.TypeInboxClear && f.AtMs == atMs {
			n++
		}
	}
	return n
}

func checkInboxClearExact(x *index, v *violations) {
	if !x.run.Traced {
		return
	}
	explained := map[int64]bool{} // the seqs of the clears a cancel explains
	for _, c := range x.run.Trace.Cancels {
		if c.Down || c.KeepInbox || c.Kind == pluginEnd {
			continue
		}
		queued := x.queuedAt(c.SeqAt)
		cleared := 0
		for _, e := range x.clearsAfter(c.SeqAt) {
			explained[e.Seq] = true
			id := e.Data.(harness.InboxClear).MessageID
			if !slices.Contains(queued, id) {
				v.add(e.Seq, e.Time, "the %s cancel at +%.3fs cleared %s, which was not queued then", c.Kind, float64(c.AtMs)/1000, id)
				continue
			}
			cleared++
		}
		if missing := len(queued) - cleared; missing > x.refusedClearsAt(c.AtMs) {
			v.add(c.SeqAt, c.AtMs, "the %s cancel without keepInbox at +%.3fs left %d of %d queued message(s) uncleared (%v), and the store refused no inbox/clear for them", c.Kind, float64(c.AtMs)/1000, missing, len(queued), queued)
		}
	}
	for _, e := range x.run.Log {
		if e.Type == harness.TypeInboxClear && !explained[e.Seq] {
			d := e.Data.(harness.InboxClear)
			v.add(e.Seq, e.Time, "inbox/clear of %s (%s lane) follows no cancel without keepInbox: %s", d.MessageID, d.Lane, x.cancelsAtSeq(e.Seq))
		}
	}
}

// cancelsAtSeq describes the cancellations made at the log length just before seq's run of
// clears began, for a violation message.
func (x *index) cancelsAtSeq(seq int64) string {
	start := seq - 1
	for start >= 1 && x.run.Log[start-1].Type == harness.TypeInboxClear {
		start--
	}
	var kinds []string
	for _, c := range x.run.Trace.Cancels {
		if c.SeqAt == start {
			kind := c.Kind
			if c.KeepInbox {
				kind += " with keepInbox"
			}
			kinds = append(kinds, kind)
		}
	}
	if len(kinds) == 0 {
		return "no cancellation there"
	}
	return "the cancellation there was " + strings.Join(kinds, ", ")
}
