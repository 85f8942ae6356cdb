package properties

import (
	"slices"

	"github.com/turnsim/turnsim/harness"
)

// index is what several properties derive from a run's log, built once per run.
type index struct {
	run *Run // the run checked
	// turns holds each turn by its number. A harness numbers its turns 1, 2, 3 …; should a broken
	// log start a number twice, the last turn/start wins.
	turns map[int]*turnIndex
	// turnList lists the turns in the order their turn/start appears, each entry the turn its
	// number names: a number started twice names its last start's turn both times.
	turnList []*turnIndex
	retries  []eventAt[harness.LlmRetry]
	started  []eventAt[harness.LlmRetryStarted]
	// runs holds the simulated tools' executions by the call they run (a call run twice: its
	// last run).
	runs map[callKey]ToolRun
	// brokenAtMs is when the store first refused a step/end or turn/end: from then on a turn stays
	// open for good (the session is broken: an infrastructure failure); -1 if it never did.
	brokenAtMs int64
}

// eventAt is a log event's payload with its seq and time.
type eventAt[T any] struct {
	seq, timeMs int64
	data        T
}

type turnIndex struct {
	number   int
	startSeq int64
	startMs  int64
	end      *harness.TurnEnd // nil until the turn/end is in
	endSeq   int64
	endMs    int64
	// steps holds the turn's steps by number (the last step/start of a number wins), and
	// stepOrder their numbers in the order their step/start appears.
	steps     map[int]*stepIndex
	stepOrder []int
	maxTokens bool // some step's answer finished max-tokens
	// cancels are the cancellations (not plugin-end) that landed while the turn was open: a turn
	// with one must end aborted with the first one's cause.
	cancels []Cancel
}

type stepIndex struct {
	message    *harness.AssistantMessage // nil until the answer is in
	messageSeq int64
	calls      []eventAt[harness.ToolCall]
	results    []eventAt[harness.ToolResult]
}

// newIndex derives the index from r: its log, read once, and the trace.
func newIndex(r *Run) *index {
	x := &index{run: r, turns: map[int]*turnIndex{}, runs: map[callKey]ToolRun{}, brokenAtMs: -1}
	for _, f := range r.Trace.Refusals {
		if (f.Type == harness.TypeTurnEnd || f.Type == harness.TypeStepEnd) && x.brokenAtMs < 0 {
			x.brokenAtMs = f.AtMs
		}
	}
	var turnOrder []int
	for _, e := range r.Log {
		switch d := e.Data.(type) {
		case harness.TurnStart:
			x.turns[d.Turn] = &turnIndex{number: d.Turn, startSeq: e.Seq, startMs: e.Time, steps: map[int]*stepIndex{}}
			turnOrder = append(turnOrder, d.Turn)
		case harness.TurnEnd:
			if t := x.turns[d.Turn]; t != nil {
				t.end, t.endSeq, t.endMs = &d, e.Seq, e.Time
			}
		case harness.StepStart:
			if t := x.turns[d.Turn]; t != nil {
				t.steps[d.Step] = &stepIndex{}
				t.stepOrder = append(t.stepOrder, d.Step)
			}
		case harness.AssistantMessage:
			if s := x.step(d.Turn, d.Step); s != nil {
				s.message, s.messageSeq = &d, e.Seq
				if d.Finish == harness.FinishMaxTokens {
					x.turns[d.Turn].maxTokens = true
				}
			}
		case harness.ToolCall:
			if s := x.step(d.Turn, d.Step); s != nil {
				s.calls = append(s.calls, eventAt[harness.ToolCall]{e.Seq, e.Time, d})
			}
		case harness.ToolResult:
			if s := x.step(d.Turn, d.Step); s != nil {
				s.results = append(s.results, eventAt[harness.ToolResult]{e.Seq, e.Time, d})
			}
		case harness.LlmRetry:
			x.retries = append(x.retries, eventAt[harness.LlmRetry]{e.Seq, e.Time, d})
		case harness.LlmRetryStarted:
			x.started = append(x.started, eventAt[harness.LlmRetryStarted]{e.Seq, e.Time, d})
		}
	}
	for _, n := range turnOrder {
		x.turnList = append(x.turnList, x.turns[n])
	}
	for _, t := range x.turns {
		t.cancels = x.cancelsWhileOpen(t)
	}
	for _, run := range r.Trace.Tools {
		x.runs[callKey{run.Turn, run.Step, run.CallID}] = run
	}
	return x
}

// step returns step number step of turn number turn, nil if either was never started.
func (x *index) step(turn, step int) *stepIndex {
	if t := x.turns[turn]; t != nil {
		return t.steps[step]
	}
	return nil
}

// lastStep is the number of t's last step/start; t has one.
func (t *turnIndex) lastStep() int {
	return t.stepOrder[len(t.stepOrder)-1]
}

// refusedIn reports whether the store refused an append of one of types in turn (step 0: in any
// step of it, or outside steps), or of any type when types is empty: an infrastructure failure,
// after which some promises are not owed.
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
	t := x.turns[n]
	return x.refusedIn(n, 0, harness.TypeStepEnd, harness.TypeTurnEnd) || (t != nil && x.brokenAtMs >= 0 && t.startMs >= x.brokenAtMs)
}

// cancelsWhileOpen returns the cancellations (not plugin-end) of turn t that landed while it was
// open: from its turn/start until its turn/end, if it has one.
func (x *index) cancelsWhileOpen(t *turnIndex) []Cancel {
	var cancels []Cancel
	for _, c := range x.run.Trace.Cancels {
		if c.Kind == pluginEnd || !c.Running || c.Turn != t.number {
			continue
		}
		if c.SeqAt >= t.startSeq && (t.end == nil || c.SeqAt < t.endSeq) {
			cancels = append(cancels, c)
		}
	}
	return cancels
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
