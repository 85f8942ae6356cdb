package properties

import (
	"slices"

	"github.com/turnsim/turnsim/harness"
)

// index is what several properties derive from a run's log, built once per run.
type index struct {
	// run is the run checked, copied in: held by address, every Run a caller built would escape to
	// the heap with the index (the checks are called through func values).
	run Run
	// turnList lists the turns in the order their turn/start appears, each entry the turn its
	// number names (turn): a number started twice names its last start's turn both times.
	turnList []*turnIndex
	// turnsByNumber holds the turn numbered n at n, for the numbers 0 … len-1 (a harness numbers
	// its turns 1, 2, 3 …); turnsElsewhere any other number's. Lookups are turn's, with a map's
	// answers: the last turn/start of a number wins, a number never started finds nil.
	turnsByNumber  []*turnIndex
	turnsElsewhere map[int]*turnIndex
	retries        []eventAt[harness.LlmRetry]
	started        []eventAt[harness.LlmRetryStarted]
	// brokenAtMs is when the store first refused a step/end or turn/end: from then on a turn stays
	// open for good (the session is broken: an infrastructure failure); -1 if it never did.
	brokenAtMs int64
	// clearCount counts the log's inbox/clear events (by their data).
	clearCount int
	// inbox lists the positions in the log of its user/message, inbox/push, inbox/claim and
	// inbox/clear events, in log order: the inbox checks replay these few, not the whole log.
	inbox []int
	// seqsInOrder is whether every event's seq is its position in the log plus one, as a harness
	// writes them: then the events before a seq are the log's first seq-1 (logIndexAfter).
	seqsInOrder bool
	// repeats is whether a turn or step number was started twice (a broken log): then the turn
	// list, or a turn's steps, name one turn or step more than once (resolveRepeats).
	repeats bool
	// found is Check's collector of violations, for one property after another.
	found violations
	// runs is runsByCall's answer, worked out on its first call (runsKnown).
	runs      map[callKey]ToolRun
	runsKnown bool
	// bufs are the arrays the index is built in, kept across runs (spareIndex, indexPool).
	bufs indexBuffers
}

// stepRef is one step/start of a turn: its number and the step that number names in the turn
// (stepOf), which for a number started twice is the last start's, as in a map.
type stepRef struct {
	number int
	step   *stepIndex
}

type eventAt[T any] struct {
	seq, timeMs int64
	data        T
}

type turnIndex struct {
	number   int
	startSeq int64
	startMs  int64
	end      *harness.TurnEnd // &endData once the turn/end is in; nil until then
	endData  harness.TurnEnd
	endSeq   int64
	endMs    int64
	// steps lists the turn's steps in the order their step/start appears.
	steps     []stepRef
	maxTokens bool // some step's answer finished max-tokens
	// cancels is cancelsOf's answer, worked out on its first call (cancelsKnown): a dozen
	// properties ask for it, and each answer used to be a fresh slice.
	cancels      []Cancel
	cancelsKnown bool
	lastFinish   harness.Finish
}

type stepIndex struct {
	message     *harness.AssistantMessage // &messageData once the answer is in; nil until then
	messageData harness.AssistantMessage
	messageSeq  int64
	calls       []eventAt[harness.ToolCall]
	results     []eventAt[harness.ToolResult]
}

// newIndex builds the index of r in memory from the spare or indexPool; release hands it back.
func newIndex(r *Run) *index {
	x := takeIndex()
	x.run, x.brokenAtMs = *r, -1
	b := &x.bufs
	b.largestEvents, b.largestBytes = max(b.largestEvents, len(r.Log)), max(b.largestBytes, len(r.JSONL))
	b.cancels = b.cancels[:0]
	for _, f := range r.Trace.Refusals {
		if (f.Type == harness.TypeTurnEnd || f.Type == harness.TypeStepEnd) && x.brokenAtMs < 0 {
			x.brokenAtMs = f.AtMs
		}
	}
	// The turns and steps are allocated together, two slices counted first, not one by one; so
	// are the retries and their starts. A turn's end and a step's answer live in them.
	turnCount, stepCount, retryCount, startedCount, callCount, resultCount, inboxCount := 0, 0, 0, 0, 0, 0, 0
	log := r.Log         // in a local, not reloaded through r at every event
	inOrder := true      // in a local: a field is stored at every event
	for i := range log { // by index: a copy of each event cost more than the switch
		inOrder = inOrder && log[i].Seq == int64(i+1)
		switch log[i].Data.(type) {
		case harness.UserMessage, harness.InboxPush, harness.InboxClaim:
			inboxCount++
		case harness.TurnStart:
			turnCount++
		case harness.StepStart:
			stepCount++
		case harness.LlmRetry:
			retryCount++
		case harness.LlmRetryStarted:
			startedCount++
		case harness.ToolCall:
			callCount++
		case harness.ToolResult:
			resultCount++
		case harness.InboxClear:
			x.clearCount++
		}
	}
	inboxCount += x.clearCount
	x.seqsInOrder = inOrder
	// Each turn's steps, and each step's calls and results, are packed in one array of each for
	// the run (appendPacked), not grown one slice per turn and step.
	stepRefs := empty(&b.stepRefs, stepCount)
	calls := empty(&b.calls, callCount)
	results := empty(&b.results, resultCount)
	turns, steps := empty(&b.turns, turnCount), empty(&b.steps, stepCount)
	// One array holds the turn list and the numbers' table: turn numbers 0 … turnCount.
	turnPointers := empty(&b.turnPointers, turnCount+turnCount+1)[:turnCount+turnCount+1]
	clear(turnPointers[turnCount:]) // the table's: a number never started finds nil
	x.turnList, x.turnsByNumber = turnPointers[:0:turnCount], turnPointers[turnCount:]
	if retryCount > 0 {
		x.retries = empty(&b.retries, retryCount)
	}
	if startedCount > 0 {
		x.started = empty(&b.started, startedCount)
	}
	if inboxCount > 0 {
		x.inbox = empty(&b.inbox, inboxCount)
	}
	for i := range log {
		e := &log[i]
		switch d := e.Data.(type) {
		case harness.TurnStart:
			turns = append(turns, turnIndex{number: d.Turn, startSeq: e.Seq, startMs: e.Time})
			x.setTurn(&turns[len(turns)-1]) // turns never grows past its capacity: no move
			x.turnList = append(x.turnList, &turns[len(turns)-1])
		case harness.TurnEnd:
			if t := x.turn(d.Turn); t != nil {
				t.endData, t.endSeq, t.endMs = d, e.Seq, e.Time
				t.end = &t.endData
			}
		case harness.StepStart:
			if t := x.turn(d.Turn); t != nil {
				steps = append(steps, stepIndex{})
				t.steps = appendPacked(&stepRefs, t.steps, stepRef{d.Step, &steps[len(steps)-1]})
			}
		case harness.AssistantMessage:
			if s := x.step(d.Turn, d.Step); s != nil {
				s.messageData, s.messageSeq = d, e.Seq
				s.message = &s.messageData
				t := x.turn(d.Turn)
				t.lastFinish = d.Finish
				if d.Finish == harness.FinishMaxTokens {
					t.maxTokens = true
				}
			}
		case harness.ToolCall:
			if s := x.step(d.Turn, d.Step); s != nil {
				s.calls = appendPacked(&calls, s.calls, eventAt[harness.ToolCall]{e.Seq, e.Time, d})
			}
		case harness.ToolResult:
			if s := x.step(d.Turn, d.Step); s != nil {
				s.results = appendPacked(&results, s.results, eventAt[harness.ToolResult]{e.Seq, e.Time, d})
			}
		case harness.LlmRetry:
			x.retries = append(x.retries, eventAt[harness.LlmRetry]{e.Seq, e.Time, d})
		case harness.LlmRetryStarted:
			x.started = append(x.started, eventAt[harness.LlmRetryStarted]{e.Seq, e.Time, d})
		case harness.UserMessage, harness.InboxPush, harness.InboxClaim, harness.InboxClear:
			x.inbox = append(x.inbox, i)
		}
	}
	x.resolveRepeats()
	return x
}

// logIndexAfter is the position in the log, from position from on, of the first event whose seq
// is above seq (the log's length if none is): where a walk of the log from there that stops at
// a later seq stops. In a log as a harness writes it, it is worked out, not searched.
func (x *index) logIndexAfter(from int, seq int64) int {
	log := x.run.Log
	if x.seqsInOrder {
		return max(from, int(min(max(seq, 0), int64(len(log)))))
	}
	for i := from; i < len(log); i++ {
		if log[i].Seq > seq {
			return i
		}
	}
	return len(log)
}

// setTurn makes t the turn its number names, in place of any turn started before with it.
func (x *index) setTurn(t *turnIndex) {
	if n := t.number; n >= 0 && n < len(x.turnsByNumber) {
		x.turnsByNumber[n] = t
		return
	}
	if x.turnsElsewhere == nil {
		x.turnsElsewhere = map[int]*turnIndex{}
	}
	x.turnsElsewhere[t.number] = t
}

// turn returns the turn numbered n (its last turn/start's), nil if none started.
func (x *index) turn(n int) *turnIndex {
	if n >= 0 && n < len(x.turnsByNumber) {
		return x.turnsByNumber[n]
	}
	return x.turnsElsewhere[n]
}

// resolveRepeats points every entry of the turn list, and of each turn's steps, at what its
// number names once the log is read: the last start of a number started twice (which only a
// broken log holds), as a map from number to turn or step answers.
func (x *index) resolveRepeats() {
	for i, t := range x.turnList {
		x.turnList[i] = x.turn(t.number)
		x.repeats = x.repeats || x.turnList[i] != t
	}
	for _, t := range x.turnList {
		for i, ref := range t.steps {
			t.steps[i].step = x.stepOf(t, ref.number)
			x.repeats = x.repeats || t.steps[i].step != ref.step
		}
	}
}

func (x *index) step(turn, step int) *stepIndex {
	if t := x.turn(turn); t != nil {
		return x.stepOf(t, step)
	}
	return nil
}

// stepOf returns step number of turn t (its last step/start's), nil if it has none.
func (x *index) stepOf(t *turnIndex, number int) *stepIndex {
	for i := len(t.steps) - 1; i >= 0; i-- {
		if t.steps[i].number == number {
			return t.steps[i].step
		}
	}
	return nil
}

// lastStep is the number of t's last step/start; t has one.
func (t *turnIndex) lastStep() int {
	return t.steps[len(t.steps)-1].number
}

// refusedIn reports whether the store refused an append of one of types in turn (step 0: in any
// step of it, or outside steps), or of any type when types is empty: an infrastructure failure,
// after which some promises are not owed. The refusals are searched, not mapped: most runs have
// none, the others a few.
func (x *index) refusedIn(turn, step int, types ...string) bool {
	for _, f := range x.run.Trace.Refusals {
		if f.Turn != turn || (step != 0 && f.Step != step) {
			continue
		}
		if len(types) == 0 || slices.Contains(types, f.Type) {
			return true
		}
	}
	return false
}

// goexitIn reports whether a request of turn n ended the goroutine calling the provider by
// runtime.Goexit: the turn's own goroutine is gone, nothing in it can retry, and it ends in error.
func (x *index) goexitIn(n int) bool {
	for _, r := range x.run.Trace.Requests {
		if r.Turn == n && r.Goexit {
			return true
		}
	}
	return false
}

// unsettleable reports whether turn n can never end: the store refused its step/end or turn/end
// (the session is broken from then on), or it started after the session broke.
func (x *index) unsettleable(n int) bool {
	t := x.turn(n)
	return x.refusedIn(n, 0, harness.TypeStepEnd, harness.TypeTurnEnd) || (t != nil && x.brokenAtMs >= 0 && t.startMs >= x.brokenAtMs)
}

// cancelsOf returns the cancellations (not plugin-end) that landed while turn was open: a turn
// with one must end aborted with the first one's cause. The slice is shared: callers only read it.
func (x *index) cancelsOf(t *turnIndex) []Cancel {
	if t.cancelsKnown {
		return t.cancels
	}
	t.cancels, t.cancelsKnown = x.findCancels(t), true
	return t.cancels
}

// findCancels finds cancelsOf's answer, appended to the index's array of them (bufs.cancels) and
// capped, so that no append to one turn's writes into another's; nil when there are none.
func (x *index) findCancels(t *turnIndex) []Cancel {
	all := x.bufs.cancels
	start := len(all)
	for _, c := range x.run.Trace.Cancels {
		if c.Kind == pluginEnd || !c.Running || c.Turn != t.number {
			continue
		}
		if c.SeqAt >= t.startSeq && (t.end == nil || c.SeqAt < t.endSeq) {
			all = append(all, c)
		}
	}
	x.bufs.cancels = all
	if len(all) == start {
		return nil
	}
	return all[start:len(all):len(all)]
}

// pluginEnd is the Cancel kind of the llm-retry plugin's lifetime ending.
const pluginEnd = "plugin-end"

// pluginEndedAt is when the llm-retry plugin's lifetime ended: its first plugin-end or dispose
// (a later one changes nothing). ok is false if it never did.
func (x *index) pluginEndedAt() (atMs int64, ok bool) {
	for _, c := range x.run.Trace.Cancels {
		if (c.Kind == pluginEnd || c.Kind == harness.CauseDisposed) && (!ok || c.AtMs < atMs) {
			atMs, ok = c.AtMs, true
		}
	}
	return atMs, ok
}

// pluginEndedBefore reports whether the llm-retry plugin's lifetime ended at or before atMs.
func (x *index) pluginEndedBefore(atMs int64) bool {
	endedAt, ok := x.pluginEndedAt()
	return ok && endedAt <= atMs
}
