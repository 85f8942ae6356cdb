package properties

import "github.com/turnsim/turnsim/harness"

// What a cancellation and a disposal must win over (spec harness.md §9): a message a cancel
// cleared never reaches a request, and once the llm-retry plugin is disposed no retry comes of a
// failure it was handling.

// checkClearedNeverSent: every message an inbox/clear dropped is absent from every request the
// provider saw. Messages are told apart by their text, which the simulator keeps unique; a
// text sent twice is not judged.
func checkClearedNeverSent(x *index, v *violations) {
	if x.clearCount == 0 {
		return // nothing was cleared, so nothing cleared was sent: no need to look at the texts
	}
	// The clears and the user/messages, by their place in the log: a run holds a few of each, so
	// they are searched, not mapped.
	var clearsArray, usersArray [16]int
	clears, users := clearsArray[:0], usersArray[:0]
	for _, i := range x.inbox {
		switch x.run.Log[i].Data.(type) {
		case harness.InboxClear:
			clears = append(clears, i)
		case harness.UserMessage:
			users = append(users, i)
		}
	}
	// The texts a request must not hold, worked out once for the run rather than for every entry
	// of every request: each cleared message's whose text no other user/message has.
	var forbiddenArray [16]clearedText
	forbidden := forbiddenArray[:0]
	for _, u := range users {
		m := x.run.Log[u].Data.(harness.UserMessage).Message
		if clear, ok := x.lastClearOf(clears, m.ID); ok {
			if x.onlyMessageWith(users, m.Text) {
				forbidden = append(forbidden, clearedText{m.Text, m.ID, clear})
			}
		}
	}
	if len(forbidden) == 0 {
		return // no cleared message can be told by its text
	}
	for _, r := range x.run.Trace.Requests {
		for _, m := range r.Messages {
			if m.Role != harness.RoleUser {
				continue
			}
			for _, f := range forbidden {
				if f.text == m.Text {
					v.add(f.clear.Seq, r.StartMs, "message %s (%q) was cleared by a cancel at +%.3fs, yet turn %d step %d attempt %d sent it", f.id, f.text, float64(f.clear.Time)/1000, r.Turn, r.Step, r.Attempt)
				}
			}
		}
	}
}

// clearedText is a cleared message's text, its id and its last inbox/clear: a request holding
// the text sent the message.
type clearedText struct {
	text, id string
	clear    harness.Event
}

// onlyMessageWith reports whether one user/message alone (among the log's events at users) has
// text: asked of a message's own text, whether no other message has it.
func (x *index) onlyMessageWith(users []int, text string) bool {
	n := 0
	for _, i := range users {
		if x.run.Log[i].Data.(harness.UserMessage).Message.Text == text {
			n++
		}
	}
	return n == 1
}

// lastClearOf returns the last inbox/clear (among the log's events at clears) of message id.
func (x *index) lastClearOf(clears []int, id string) (harness.Event, bool) {
	for k := len(clears) - 1; k >= 0; k-- {
		if e := x.run.Log[clears[k]]; e.Data.(harness.InboxClear).MessageID == id {
			return e, true
		}
	}
	return harness.Event{}, false
}

// checkNoRetryAfterDispose: a failure whose handling began before the llm-retry plugin's
// lifetime ended (plugin-end or dispose) gets no further attempt after that instant, whether
// llm-retry itself or a handler below it would have retried. Failures that come later go
// straight down the waterfall and are not judged here.
func checkNoRetryAfterDispose(x *index, v *violations) {
	// A failure after the plugin's (first) end was never its to handle: a handler below it may
	// retry that one.
	endedAt, ended := x.pluginEndedAt()
	if !ended {
		return
	}
	requests := x.run.Trace.Requests
	for i := range requests {
		failed := &requests[i] // not a copy of each request, for each request
		if !failed.Failed || failed.EndMs < 0 || failed.EndMs >= endedAt {
			continue
		}
		for j := range requests {
			next := &requests[j]
			if next.Turn == failed.Turn && next.Step == failed.Step && next.Attempt == failed.Attempt+1 && next.StartMs > endedAt {
				v.add(0, next.StartMs, "turn %d step %d failed at +%.3fs (attempt %d) and the llm-retry plugin was disposed at +%.3fs, yet attempt %d was sent at +%.3fs",
					failed.Turn, failed.Step, float64(failed.EndMs)/1000, failed.Attempt, float64(endedAt)/1000, next.Attempt, float64(next.StartMs)/1000)
			}
		}
	}
}

// cancelledBy reports whether a cancellation landed in turn t at or before atMs.
func (x *index) cancelledBy(t *turnIndex, atMs int64) bool {
	for _, c := range x.cancelsOf(t) {
		if c.AtMs <= atMs {
			return true
		}
	}
	return false
}
