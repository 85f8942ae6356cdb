package properties

import (
	"github.com/turnsim/turnsim/harness"
)

// index is what several properties derive from a run's log, built once per run.
type index struct {
	run   *Run
	turns map[int]*turnIndex
	// steps holds every turn's steps by number: one map for the run, not one per turn.
	steps map[stepKey]*stepIndex
	// turnOrder lists turn numbers in the order their turn/start appears.
	turnOrder []int
	retries   []eventAt[harness.LlmRetry]
	started   []eventAt[harness.LlmRetryStarted]
	// refused holds, per turn and per (turn, step), the event types the session store refused
	// there: an infrastructure failure, after which some promises are not owed (see refusedIn).
	refused map[[2]int]map[string]bool
	// brokenAtMs is when the store first refused a step/end or turn/end: from then on a turn stays
	// open for good (the session is broken: an infrastructure failure); -1 if it never did.
	brokenAtMs int64
	// pendingLanes are pendingAt's two lanes, reused from one call to the next.
	pendingLanes [2][]string
}

type stepKey struct {
	turn   *turnIndex
	number int
}

type eventAt[T any] struct {
	seq, timeMs int64
	data        T
}

type turnIndex struct {
	number    int
	startSeq  int64
	startMs   int64
	end       *harness.TurnEnd // &endData once the turn/end is in; nil until then
	endData   harness.TurnEnd
	endSeq    int64
	endMs     int64
	stepOrder []int
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

func newIndex(r *Run) *index {
	x := &index{run: r, brokenAtMs: -1}
	for _, f := range r.Trace.Refusals {
		if x.refused == nil { // most runs have no refusal: reading a nil map finds none
			x.refused = map[[2]int]map[string]bool{}
		}
		for _, key := range [][2]int{{f.Turn, 0}, {f.Turn, f.Step}} {
			if x.refused[key] == nil {
				x.refused[key] = map[string]bool{}
			}
			x.refused[key][f.Type] = true
		}
		if (f.Type == harness.TypeTurnEnd || f.Type == harness.TypeStepEnd) && x.brokenAtMs < 0 {
			x.brokenAtMs = f.AtMs
		}
	}
	// The turns and steps are allocated together, two slices counted first, not one by one; so
	// are the retries and their starts. A turn's end and a step's answer live in them.
	turnCount, stepCount, retryCount, startedCount, callCount, resultCount := 0, 0, 0, 0, 0, 0
	for _, e := range r.Log {
		switch e.Data.(type) {
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
		}
	}
	// Each turn's step numbers, and each step's calls and results, are packed in one array of
	// each for the run (appendPacked), not grown one slice per turn and step.
	stepOrders := make([]int, 0, stepCount)
	calls := make([]eventAt[harness.ToolCall], 0, callCount)
	results := make([]eventAt[harness.ToolResult], 0, resultCount)
	turns, steps := make([]turnIndex, 0, turnCount), make([]stepIndex, 0, stepCount)
	x.turns = make(map[int]*turnIndex, turnCount)
	x.steps = make(map[stepKey]*stepIndex, stepCount)
	x.turnOrder = make([]int, 0, turnCount)
	if retryCount > 0 {
		x.retries = make([]eventAt[harness.LlmRetry], 0, retryCount)
	}
	if startedCount > 0 {
		x.started = make([]eventAt[harness.LlmRetryStarted], 0, startedCount)
	}
	for _, e := range r.Log {
		switch d := e.Data.(type) {
		case harness.TurnStart:
			turns = append(turns, turnIndex{number: d.Turn, startSeq: e.Seq, startMs: e.Time})
			x.turns[d.Turn] = &turns[len(turns)-1] // turns never grows past its capacity: no move
			x.turnOrder = append(x.turnOrder, d.Turn)
		case harness.TurnEnd:
			if t := x.turns[d.Turn]; t != nil {
				t.endData, t.endSeq, t.endMs = d, e.Seq, e.Time
				t.end = &t.endData
			}
		case harness.StepStart:
			if t := x.turns[d.Turn]; t != nil {
				steps = append(steps, stepIndex{})
				x.steps[stepKey{t, d.Step}] = &steps[len(steps)-1]
				t.stepOrder = appendPacked(&stepOrders, t.stepOrder, d.Step)
			}
		case harness.AssistantMessage:
			if s := x.step(d.Turn, d.Step); s != nil {
				s.messageData, s.messageSeq = d, e.Seq
				s.message = &s.messageData
				x.turns[d.Turn].lastFinish = d.Finish
				if d.Finish == harness.FinishMaxTokens {
					x.turns[d.Turn].maxTokens = true
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
		}
	}
	return x
}

func (x *index) step(turn, step int) *stepIndex {
	if t := x.turns[turn]; t != nil {
		return x.stepOf(t, step)
	}
	return nil
}

// stepOf returns step number of turn t, nil if it has none.
func (x *index) stepOf(t *turnIndex, number int) *stepIndex {
	return x.steps[stepKey{t, number}]
}

// refusedIn reports whether the store refused an append of one of types in turn (step 0: in any
// step of it, or outside steps), or of any type when types is empty.
func (x *index) refusedIn(turn, step int, types ...string) bool {
	refused := x.refused[[2]int{turn, step}]
	if len(types) == 0 {
		return len(refused) > 0
	}
	for _, t := range types {
		if refused[t] {
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
	t := x.turns[n]
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

func (x *index) findCancels(t *turnIndex) []Cancel {
	var out []Cancel
	for _, c := range x.run.Trace.Cancels {
		if c.Kind == pluginEnd || !c.Running || c.Turn != t.number {
			continue
		}
		if c.SeqAt >= t.startSeq && (t.end == nil || c.SeqAt < t.endSeq) {
			out = append(out, c)
		}
	}
	return out
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
