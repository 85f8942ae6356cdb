package properties

import (
	"cmp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/turnsim/turnsim/harness"
)

// The properties below once mapped what they look up (ids, seqs, keys) and built lists they only
// asked the first of or the length of; they now search their few entries and reuse buffers. On
// random runs each finds what its maps version found, message for message.
func TestPropertiesAreTheirMapsVersions(t *testing.T) {
	holdToMapsVersions(t, func(t *rapid.T) *Run {
		r := randomInboxRun(t)
		addRandomRequests(t, r)
		return r
	}, []mapsVersion{
		{"inbox-clear-exact", checkInboxClearExact, checkInboxClearExactByMaps},
		{"wake-justified", checkWakeJustified, checkWakeJustifiedByMaps},
		{"latched-wake-served", checkLatchedWakeServed, checkLatchedWakeServedByMaps},
		{"cleared-never-sent", checkClearedNeverSent, checkClearedNeverSentByMaps},
		{"conversation-well-formed", checkConversationWellFormed, checkConversationWellFormedByMaps},
		{"durable-before-wait", checkDurableBeforeWait, checkDurableBeforeWaitByMaps},
		{"retry-budget", checkRetryBudget, checkRetryBudgetByMaps},
	})
}

// mapsVersion is a property as it checks now and as it checked with maps, kept to hold the
// rewrite to.
type mapsVersion struct {
	name        string
	now, before func(*index, *violations)
}

// holdToMapsVersions requires of every version that, on the random runs draw makes, it finds
// what its maps version found, message for message.
func holdToMapsVersions(t *testing.T, draw func(*rapid.T) *Run, versions []mapsVersion) {
	rapid.Check(t, func(t *rapid.T) {
		r := draw(t)
		for _, version := range versions {
			require.Equal(t, violationsOf(r, version.before), violationsOf(r, version.now), version.name)
		}
	})
}

// addRandomRequests gives r requests (of few turns and steps, some failed) whose conversations
// hold user texts of the log's messages and tool calls and results of few ids, waits anchored
// anywhere in the log, llm/retry events, retries a handler granted, and a normal-mode policy.
func addRandomRequests(t *rapid.T, r *Run) {
	numbers := rapid.IntRange(1, 3)
	callIDs := rapid.SampledFrom([]string{"call_1", "call_2", "call_3"})
	texts := rapid.SampledFrom([]string{"said m1", "said m2", "said m3", "other"})
	for range rapid.IntRange(0, 6).Draw(t, "requests") {
		q := Request{Turn: numbers.Draw(t, "turn"), Step: numbers.Draw(t, "step"), StartMs: rapid.Int64Range(0, 10).Draw(t, "startMs")}
		for range rapid.IntRange(0, 6).Draw(t, "messages") {
			switch rapid.IntRange(0, 2).Draw(t, "role") {
			case 0:
				q.Messages = append(q.Messages, RequestMessage{Role: harness.RoleUser, Text: texts.Draw(t, "text")})
			case 1:
				q.Messages = append(q.Messages, RequestMessage{Role: harness.RoleAssistant, CallIDs: rapid.SliceOfN(callIDs, 0, 3).Draw(t, "calls")})
			default:
				q.Messages = append(q.Messages, RequestMessage{Role: harness.RoleTool, ResultFor: callIDs.Draw(t, "result")})
			}
		}
		r.Trace.Requests = append(r.Trace.Requests, q)
	}
	for range rapid.IntRange(0, 2).Draw(t, "handlerRetries") {
		r.Trace.HandlerRetries = append(r.Trace.HandlerRetries, HandlerRetry{numbers.Draw(t, "turn"), numbers.Draw(t, "step")})
	}
	// Some events become llm/retry records (their seqs stay), and waits begin after some seqs.
	for i := range r.Log {
		if rapid.IntRange(0, 5).Draw(t, "retry") == 0 {
			d := harness.LlmRetry{Turn: numbers.Draw(t, "turn"), Step: numbers.Draw(t, "step"), Retry: numbers.Draw(t, "retry"), DelayMs: float64(rapid.IntRange(0, 2).Draw(t, "delayMs"))}
			r.Log[i].Data, r.Log[i].Type = d, d.EventType()
		}
	}
	for range rapid.IntRange(0, 3).Draw(t, "waits") {
		r.Trace.Waits = append(r.Trace.Waits, Wait{StartMs: rapid.Int64Range(0, 10).Draw(t, "startMs"), DelayMs: float64(rapid.IntRange(0, 2).Draw(t, "delayMs")), SeqBefore: rapid.Int64Range(0, int64(len(r.Log))).Draw(t, "seqBefore")})
	}
	r.Policy = harness.RetryPolicy{Mode: harness.ModeNormal, MaxRetries: rapid.IntRange(0, 2).Draw(t, "maxRetries")}
}

func (x *index) queuedAtByMaps(seqAt int64) []string {
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

func checkInboxClearExactByMaps(x *index, v *violations) {
	if !x.run.Traced {
		return
	}
	explained := map[int64]bool{}
	for _, c := range x.run.Trace.Cancels {
		if c.Down || c.KeepInbox || c.Kind == pluginEnd || c.Kind == harness.CauseDisposed {
			continue
		}
		queued := x.queuedAtByMaps(c.SeqAt)
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

func (x *index) wakingPushesByMaps(after, before int64) []int64 {
	var seqs []int64
	for _, e := range x.run.Log {
		if e.Seq <= after || e.Seq >= before {
			continue
		}
		if p, ok := e.Data.(harness.InboxPush); ok && p.Kind != harness.KindInject {
			seqs = append(seqs, e.Seq)
		}
	}
	return seqs
}

func checkWakeJustifiedByMaps(x *index, v *violations) {
	var previous *turnIndex
	for _, t := range x.turnList {
		n := t.number
		prev := previous
		previous = t
		if x.restartedBefore(t, prev) {
			continue // a restarted agent wakes itself for the work its log left queued
		}
		if prev != nil && prev.end != nil && x.onlySendsBetween(prev.endSeq, t.startSeq) {
			switch {
			case x.pendingAt(t.startSeq) == 0:
				v.add(t.startSeq, t.startMs, "turn %d started straight after turn %d with nothing in the inbox", n, prev.number)
			case prev.end.Reason.Kind == harness.EndError && !x.claimedIn(prev.number) && len(x.wakingPushesByMaps(prev.startSeq, t.startSeq)) == 0:
				// A turn that failed before taking any message would fail the same way again:
				// rerunning it unasked is how a refusing store spins the driver.
				v.add(t.startSeq, t.startMs, "turn %d started straight after turn %d, which failed before taking any message, with no new wake", n, prev.number)
			}
			continue
		}
		after := int64(0)
		if prev != nil {
			after = prev.endSeq
			if prev.end == nil {
				continue // the previous turn never ended: turn-settled reports it
			}
			if _, c, aborted := x.abortedTurnAt(prev.endSeq); aborted {
				after = c.SeqAt // a waking send after the abort was latched
			}
		}
		if len(x.wakingPushesByMaps(after, t.startSeq)) == 0 {
			v.add(t.startSeq, t.startMs, "turn %d started although no followup or steer woke the agent", n)
		}
	}
}

func checkLatchedWakeServedByMaps(x *index, v *violations) {
	for i, t := range x.turnList {
		n := t.number
		if t.end == nil || t.end.Reason.Kind != harness.EndAborted {
			continue
		}
		cancels := x.cancelsOf(t)
		if len(cancels) == 0 || cancels[0].Kind == harness.CauseDisposed || x.disposedBefore(t.endSeq) {
			continue
		}
		latched := x.wakingPushesByMaps(cancels[0].SeqAt, t.endSeq)
		if len(latched) == 0 || x.pendingAt(t.endSeq+1) == 0 {
			continue
		}
		for _, c := range cancels[1:] {
			if !c.KeepInbox {
				latched = nil // a later cancel cleared the inbox and the latch
			}
		}
		// The latch is replayed the moment the aborted turn ends: the next turn starts at that
		// very instant (a crash then aside, which wakes the restarted agent instead).
		servedAt := int64(-1)
		if i+1 < len(x.turnList) {
			servedAt = x.turnList[i+1].startMs
		}
		// The replay is a wake like any other: if the store refused its turn/start, the work
		// stays queued and the next wake serves it (agent/error reports the refusal).
		if len(latched) > 0 && servedAt != t.endMs && !x.crashedAt(t.endMs) && !x.cancelledAt(t.endMs, t.endSeq) && !x.turnStartRefusedAt(t.endMs) {
			v.add(latched[0], t.endMs, "a waking send during aborted turn %d was latched, but no turn started when it ended though its work is queued", n)
		}
	}
}

func checkClearedNeverSentByMaps(x *index, v *violations) {
	var cleared map[string]harness.Event
	for _, e := range x.run.Log {
		if d, ok := e.Data.(harness.InboxClear); ok {
			if cleared == nil {
				cleared = map[string]harness.Event{}
			}
			cleared[d.MessageID] = e
		}
	}
	if cleared == nil {
		return // nothing was cleared, so nothing cleared was sent: no need to map the texts
	}
	idsOf := map[string][]string{}
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
			text := m.Text
			ids := idsOf[text]
			if len(ids) != 1 {
				continue
			}
			if clear, ok := cleared[ids[0]]; ok {
				v.add(clear.Seq, r.StartMs, "message %s (%q) was cleared by a cancel at +%.3fs, yet turn %d step %d attempt %d sent it", ids[0], text, float64(clear.Time)/1000, r.Turn, r.Step, r.Attempt)
			}
		}
	}
}

func checkConversationWellFormedByMaps(x *index, v *violations) {
	reported := map[string]bool{}
	report := func(r Request, callID, format string, args ...any) {
		if !reported[callID] {
			reported[callID] = true
			v.add(0, r.StartMs, "request of turn %d step %d attempt %d: "+format, append([]any{r.Turn, r.Step, r.Attempt}, args...)...)
		}
	}
	for _, r := range x.run.Trace.Requests {
		// waiting holds the calls asked for and not yet answered, in order: their ids and entries.
		type call struct {
			id    string
			entry int
		}
		var waiting []call
		answered := map[string]bool{} // ids that had a result, for a second result's message
		for i, m := range r.Messages {
			switch m.Role {
			case harness.RoleAssistant:
				for _, id := range m.CallIDs {
					if k := slices.IndexFunc(waiting, func(c call) bool { return c.id == id }); k >= 0 {
						report(r, id, "tool call %s (entry %d) is asked for again (entry %d) before it has its result", id, waiting[k].entry, i)
						waiting = slices.Delete(waiting, k, k+1)
					}
					waiting = append(waiting, call{id, i})
				}
			case harness.RoleTool:
				k := slices.IndexFunc(waiting, func(c call) bool { return c.id == m.ResultFor })
				switch {
				case k >= 0:
					waiting = slices.Delete(waiting, k, k+1)
					answered[m.ResultFor] = true
				case answered[m.ResultFor]:
					report(r, m.ResultFor, "tool call %s has a second result (entry %d)", m.ResultFor, i)
				default:
					report(r, m.ResultFor, "the tool result for %s (entry %d) has no call before it", m.ResultFor, i)
				}
			}
		}
		for _, c := range waiting {
			report(r, c.id, "tool call %s (entry %d) has no result in the conversation (%d entries)", c.id, c.entry, len(r.Messages))
		}
	}
}

func checkDurableBeforeWaitByMaps(x *index, v *violations) {
	retryAt := map[int64]eventAt[harness.LlmRetry]{}
	for _, r := range x.retries {
		retryAt[r.seq] = r
	}
	for _, w := range x.run.Trace.Waits {
		r, ok := retryAt[x.waitAnchor(w)]
		switch {
		case !ok:
			v.add(0, w.StartMs, "a backoff wait began at +%.3fs with no llm/retry written just before it", float64(w.StartMs)/1000)
		case w.StartMs != r.timeMs:
			v.add(r.seq, r.timeMs, "llm/retry #%d was written at +%.3fs but its wait began at +%.3fs", r.data.Retry, float64(r.timeMs)/1000, float64(w.StartMs)/1000)
		case w.DelayMs != r.data.DelayMs:
			v.add(r.seq, r.timeMs, "llm/retry #%d records delayMs %g but the wait was %g ms", r.data.Retry, r.data.DelayMs, w.DelayMs)
		}
	}
	for _, r := range x.retries {
		if _, ok := x.waitFor(r.seq); !ok && !x.interrupted(r.data.Turn) {
			v.add(r.seq, r.timeMs, "llm/retry #%d of turn %d step %d was never waited", r.data.Retry, r.data.Turn, r.data.Step)
		}
	}
}

func checkRetryBudgetByMaps(x *index, v *violations) {
	budget := x.run.Policy.MaxRetries
	if s := x.run.Strategy; s != nil {
		budget = s.Budget
	}
	if x.runMode() != harness.ModeNormal {
		return
	}
	requests := map[[2]int]int{}
	for _, r := range x.run.Trace.Requests {
		requests[[2]int{r.Turn, r.Step}]++
	}
	granted := map[[2]int]int{} // by a user's handler: each one request more
	for _, r := range x.run.Trace.HandlerRetries {
		granted[[2]int{r.Turn, r.Step}]++
	}
	keys := make([][2]int, 0, len(requests))
	for key := range requests {
		keys = append(keys, key)
	}
	slices.SortFunc(keys, func(a, b [2]int) int { return cmp.Or(a[0]-b[0], a[1]-b[1]) }) // violations in a stable order
	for _, key := range keys {
		if n, allowed := requests[key], 1+budget+x.run.CompactionBudget+granted[key]; n > allowed {
			v.add(0, -1, "turn %d step %d sent %d requests; normal mode allows %d", key[0], key[1], n, allowed)
		}
	}
}

func checkRetryIDContinuityByMaps(x *index, v *violations) {
	type chain struct {
		turn, step       int
		provider, policy string
	}
	ids := map[chain]string{}
	counts := map[chain]int{}
	owners := map[string]chain{}
	for _, r := range x.retries {
		c := chain{r.data.Turn, r.data.Step, r.data.Provider, r.data.PolicyKey}
		if id, ok := ids[c]; ok && id != r.data.RetryID {
			v.add(r.seq, r.timeMs, "retry #%d of a chain changed retryId from %s to %s", r.data.Retry, id, r.data.RetryID)
		}
		if owner, ok := owners[r.data.RetryID]; ok && owner != c {
			v.add(r.seq, r.timeMs, "retryId %s is shared by two chains", r.data.RetryID)
		}
		if r.data.Retry != counts[c]+1 {
			v.add(r.seq, r.timeMs, "retry #%d follows retry #%d of its chain", r.data.Retry, counts[c])
		}
		ids[c], owners[r.data.RetryID], counts[c] = r.data.RetryID, c, r.data.Retry
	}
}
