package properties

import "github.com/turnsim/turnsim/harness"

// What a cancellation and a disposal must win over (spec harness.md §9): a message a cancel
// cleared never reaches a request, and once the llm-retry plugin is disposed no retry comes of a
// failure it was handling.

// checkClearedNeverSent: every message an inbox/clear dropped is absent from every request the
// provider saw. Messages are told apart by their text, which the simulator keeps unique; a
// text sent twice is not judged.
func checkClearedNeverSent(x *index, v *violations) {
	cleared := map[string]harness.Event{} // each cleared message's last inbox/clear, by its id
	for _, e := range x.run.Log {
		if d, ok := e.Data.(harness.InboxClear); ok {
			cleared[d.MessageID] = e
		}
	}
	if len(cleared) == 0 {
		return // nothing was cleared, so nothing cleared was sent
	}
	idsOf := map[string][]string{} // the ids of the user/messages with each text
	for _, e := range x.run.Log {
		if d, ok := e.Data.(harness.UserMessage); ok {
			idsOf[d.Message.Text] = append(idsOf[d.Message.Text], d.Message.ID)
		}
	}
	for _, r := range x.run.Trace.Requests {
		for _, m := range r.Messages {
			if m.Role != harness.RoleUser {
				continue
			}
			ids := idsOf[m.Text]
			if len(ids) != 1 {
				continue // not a message's text, or more than one's: it does not say which was sent
			}
			if clear, ok := cleared[ids[0]]; ok {
				v.add(clear.Seq, r.StartMs, "message %s (%q) was cleared by a cancel at +%.3fs, yet turn %d step %d attempt %d sent it", ids[0], m.Text, float64(clear.Time)/1000, r.Turn, r.Step, r.Attempt)
			}
		}
	}
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
	for _, failed := range requests {
		if !failed.Failed || failed.EndMs < 0 || failed.EndMs >= endedAt {
			continue
		}
		for _, next := range requests {
			if next.Turn == failed.Turn && next.Step == failed.Step && next.Attempt == failed.Attempt+1 && next.StartMs > endedAt {
				v.add(0, next.StartMs, "turn %d step %d failed at +%.3fs (attempt %d) and the llm-retry plugin was disposed at +%.3fs, yet attempt %d was sent at +%.3fs",
					failed.Turn, failed.Step, float64(failed.EndMs)/1000, failed.Attempt, float64(endedAt)/1000, next.Attempt, float64(next.StartMs)/1000)
			}
		}
	}
}

// cancelledBy reports whether a cancellation landed in turn t at or before atMs.
func (x *index) cancelledBy(t *turnIndex, atMs int64) bool {
	for _, c := range t.cancels {
		if c.AtMs <= atMs {
			return true
		}
	}
	return false
}
