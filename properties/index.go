package properties

import (
	"github.com/turnsim/turnsim/harness"
)

// index is what several properties derive from a run's log, built once per run.
type index struct {
	run   *Run
	turns map[int]*turnIndex
	// turnOrder lists turn numbers in the order their turn/start appears.
	turnOrder []int
	retries   []eventAt[harness.LlmRetry]
	started   []eventAt[harness.LlmRetryStarted]
	// refusedTurns and refusedSteps are where the session store refused an append: there the
	// session is broken by design (an infrastructure failure), and settlement is not owed.
	refusedTurns map[int]bool
	refusedSteps map[[2]int]bool
	// brokenAtMs is when the store first refused a step/end or turn/end: from then on a turn stays
	// open for good (the session is broken: an infrastructure failure); -1 if it never did.
	brokenAtMs int64
}

type eventAt[T any] struct {
	seq, timeMs int64
	data        T
}

type turnIndex struct {
	number     int
	startSeq   int64
	startMs    int64
	end        *harness.TurnEnd
	endSeq     int64
	endMs      int64
	steps      map[int]*stepIndex
	stepOrder  []int
	maxTokens  bool // some step's answer finished max-tokens
	lastFinish harness.Finish
}

type stepIndex struct {
	message    *harness.AssistantMessage
	messageSeq int64
	calls      []eventAt[harness.ToolCall]
	results    []eventAt[harness.ToolResult]
}

func newIndex(r *Run) *index {
	x := &index{run: r, turns: map[int]*turnIndex{}, refusedTurns: map[int]bool{}, refusedSteps: map[[2]int]bool{}, brokenAtMs: -1}
	for _, f := range r.Trace.Refusals {
		x.refusedTurns[f.Turn] = f.Turn > 0
		if f.Step > 0 {
			x.refusedSteps[[2]int{f.Turn, f.Step}] = true
		}
		if (f.Type == harness.TypeTurnEnd || f.Type == harness.TypeStepEnd) && x.brokenAtMs < 0 {
			x.brokenAtMs = f.AtMs
		}
	}
	for _, e := range r.Log {
		switch d := e.Data.(type) {
		case harness.TurnStart:
			x.turns[d.Turn] = &turnIndex{number: d.Turn, startSeq: e.Seq, startMs: e.Time, steps: map[int]*stepIndex{}}
			x.turnOrder = append(x.turnOrder, d.Turn)
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
				x.turns[d.Turn].lastFinish = d.Finish
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
	return x
}

func (x *index) step(turn, step int) *stepIndex {
	if t := x.turns[turn]; t != nil {
		return t.steps[step]
	}
	return nil
}

// broken reports whether the session store refused a write in this turn: settlement and
// pairing are not owed there.
func (x *index) broken(turn int) bool { return x.refusedTurns[turn] }

// cancelsOf returns the cancellations (not plugin-end) that landed while turn was open: a turn
// with one must end aborted with the first one's cause.
func (x *index) cancelsOf(t *turnIndex) []Cancel {
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

// pluginEndedBefore reports whether the llm-retry plugin's lifetime ended at or before atMs.
func (x *index) pluginEndedBefore(atMs int64) bool {
	for _, c := range x.run.Trace.Cancels {
		if (c.Kind == pluginEnd || c.Kind == harness.CauseDisposed) && c.AtMs <= atMs {
			return true
		}
	}
	return false
}
