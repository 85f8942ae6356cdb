package properties

import (
	"cmp"
	"slices"

	"github.com/turnsim/turnsim/harness"
)

// eachStep calls fn for every step of every turn, in log order.
func (x *index) eachStep(fn func(t *turnIndex, number int, s *stepIndex)) {
	for _, t := range x.turnList {
		for _, number := range t.stepOrder {
			fn(t, number, t.steps[number])
		}
	}
}

// resultFor returns the step's result for call id (its last, should it have two), if any.
func (s *stepIndex) resultFor(id string) (eventAt[harness.ToolResult], bool) {
	for i := len(s.results) - 1; i >= 0; i-- {
		if s.results[i].data.CallID == id {
			return s.results[i], true
		}
	}
	return eventAt[harness.ToolResult]{}, false
}

// resultCount counts the step's results for call id.
func (s *stepIndex) resultCount(id string) int {
	n := 0
	for _, r := range s.results {
		if r.data.CallID == id {
			n++
		}
	}
	return n
}

// syntheticFor reports whether any of the step's results for call id is the synthetic
// aborted-before-dispatch one.
func (s *stepIndex) syntheticFor(id string) bool {
	for _, r := range s.results {
		if r.data.CallID == id && isSynthetic(r.data) {
			return true
		}
	}
	return false
}

// callPosition is where the model asked for call id among the tool calls of its answer m (the
// last such call, for an id asked for twice), ok false if it did not.
func callPosition(m *harness.AssistantMessage, id string) (position int, ok bool) {
	position = -1
	i := 0
	for _, b := range m.Message.Blocks {
		if b.Type != harness.BlockToolCall {
			continue
		}
		if b.CallID == id {
			position = i
		}
		i++
	}
	return position, position >= 0
}

func isSynthetic(r harness.ToolResult) bool {
	return r.Error != nil && r.Error.Code == harness.CodeToolAbortedBeforeDispatch
}

func checkToolResultsPaired(x *index, v *violations) {
	x.eachStep(func(t *turnIndex, step int, s *stepIndex) {
		if x.schedulerFailed(t.number, step) {
			return // a scheduler failure fabricates no results, by design
		}
		for _, c := range s.calls {
			if n := s.resultCount(c.data.CallID); n != 1 {
				v.add(c.seq, c.timeMs, "turn %d step %d: call %s has %d results", t.number, step, c.data.CallID, n)
			}
		}
	})
}

func checkNoDispatchAfterCancel(x *index, v *violations) {
	for _, t := range x.turnList {
		n := t.number
		if len(t.cancels) == 0 {
			continue
		}
		first := t.cancels[0]
		for _, sn := range t.stepOrder {
			s := t.steps[sn]
			// A synthetic tool/call whose result the store refused reads like a real dispatch: a
			// call that never ran, in a step where a tool/result was refused, is taken for one.
			refusedResult := x.refusedIn(n, sn, harness.TypeToolResult)
			for _, c := range s.calls {
				_, ran := x.runs[callKey{n, sn, c.data.CallID}]
				if c.seq > first.SeqAt && !s.syntheticFor(c.data.CallID) && (ran || !refusedResult) {
					v.add(c.seq, c.timeMs, "turn %d: call %s dispatched after the %s cancel at +%.3fs", n, c.data.CallID, first.Kind, float64(first.AtMs)/1000)
				}
			}
		}
	}
}

// callKey names a tool call: its id is unique in its step only, so the turn and step that
// asked for it go with it.
type callKey struct {
	turn, step int
	id         string
}

func checkDrainRealResults(x *index, v *violations) {
	x.eachStep(func(t *turnIndex, step int, s *stepIndex) {
		if x.schedulerFailed(t.number, step) {
			return
		}
		for _, c := range s.calls {
			run, started := x.runs[callKey{t.number, step, c.data.CallID}]
			if !started {
				continue
			}
			last, ok := s.resultFor(c.data.CallID)
			result, resultSeq := last.data, last.seq
			if !ok {
				v.add(c.seq, c.timeMs, "turn %d: started call %s has no result", t.number, c.data.CallID)
				continue
			}
			if run.EndMs < 0 && !x.interrupted(t.number) {
				v.add(resultSeq, -1, "turn %d: call %s never returned, yet its turn moved on", t.number, c.data.CallID)
				continue
			}
			want, known := drainedCode(run)
			got := ""
			if result.Error != nil {
				got = result.Error.Code
			}
			if got == harness.CodeToolOutcomeUnknown && x.interrupted(t.number) {
				continue // the process died before the result was committed: crash repair's honest answer
			}
			if (known && got != want) || (run.Outcome == "ok" && result.Content != run.Content) {
				v.add(resultSeq, -1, "turn %d: call %s ran (%s) but its result is %q %q", t.number, c.data.CallID, run.Outcome, got, result.Content)
			}
		}
	})
}

// drainedCode is the error code the result of a call that ran must carry, by how its run ended
// ("" for none, and for an outcome the spec does not name). known is false for a ToolFailure
// that chose no code: the spec names none for it.
func drainedCode(run ToolRun) (code string, known bool) {
	switch run.Outcome {
	case "error", "cancelled":
		return harness.CodeToolError, true
	case "panic", "goexit":
		return harness.CodeToolPanic, true
	case "killed":
		return harness.CodeToolOutcomeUnknown, true
	case "failure":
		if run.Failure == nil {
			return "", false
		}
		return run.Failure.Code, run.Failure.Code != "" // the code the tool chose
	}
	return "", true
}

func checkUnstartedGetSynthetic(x *index, v *violations) {
	known := func(name string) bool {
		return slices.Contains(x.run.ParallelTools, name) || slices.Contains(x.run.ExclusiveTools, name)
	}
	x.eachStep(func(t *turnIndex, step int, s *stepIndex) {
		if s.message == nil || s.message.Finish != harness.FinishToolCalls || x.schedulerFailed(t.number, step) || t.end == nil {
			return
		}
		for _, block := range s.message.Message.Blocks {
			if block.Type != harness.BlockToolCall {
				continue
			}
			last, ok := s.resultFor(block.CallID)
			result := last.data
			_, ran := x.runs[callKey{t.number, step, block.CallID}]
			switch {
			case !ok:
				v.add(s.messageSeq, -1, "turn %d step %d: the model asked for %s and it got no result", t.number, step, block.CallID)
			case repaired(result) && t.end.Reason.Kind == harness.EndInterrupted:
				// crash repair's result: NOT_STARTED or OUTCOME_UNKNOWN, owed in an interrupted turn
				if result.Error.Code == harness.CodeToolNotStarted && ran {
					v.add(s.messageSeq, -1, "turn %d step %d: %s ran but crash repair says it never started", t.number, step, block.CallID)
				}
			case repaired(result):
				v.add(s.messageSeq, -1, "turn %d step %d: %s got a crash-repair result in a turn that was not interrupted", t.number, step, block.CallID)
			case isSynthetic(result) && ran:
				v.add(s.messageSeq, -1, "turn %d step %d: %s ran but got the synthetic aborted-before-dispatch result", t.number, step, block.CallID)
			case !isSynthetic(result) && !ran && known(block.Name):
				v.add(s.messageSeq, -1, "turn %d step %d: %s never ran but got a result that is not the synthetic one", t.number, step, block.CallID)
			case isSynthetic(result) && t.end.Reason.Kind != harness.EndAborted && !(x.interrupted(t.number) && len(t.cancels) > 0):
				v.add(s.messageSeq, -1, "turn %d step %d: %s got the synthetic result in a turn that was not aborted", t.number, step, block.CallID)
			}
			if isSynthetic(result) && (result.Content != "Error: tool call aborted before dispatch" || result.Error.Name != "AbortError" || !result.IsError) {
				v.add(s.messageSeq, -1, "turn %d step %d: %s's synthetic result is malformed: %+v", t.number, step, block.CallID, result)
			}
		}
	})
}

// repaired reports whether r is one of crash repair's results.
func repaired(r harness.ToolResult) bool {
	return r.Error != nil && (r.Error.Code == harness.CodeToolNotStarted || r.Error.Code == harness.CodeToolOutcomeUnknown)
}

func checkResultsInModelOrder(x *index, v *violations) {
	x.eachStep(func(t *turnIndex, step int, s *stepIndex) {
		if s.message == nil {
			return
		}
		last := -1
		for _, r := range s.results {
			i, ok := callPosition(s.message, r.data.CallID)
			if !ok {
				continue
			}
			if i < last {
				v.add(r.seq, r.timeMs, "turn %d step %d: the result of %s is committed after a later call's", t.number, step, r.data.CallID)
			}
			last = max(last, i)
		}
	})
}

// inFlight counts the runs in flight once the start or end numbered order had happened: started
// then or before, not yet ended (by the order starts and ends happened, which one millisecond
// cannot tell apart).
func inFlight(runs []ToolRun, order int64) (parallel, exclusive int) {
	for _, o := range runs {
		if o.StartOrder <= order && (o.EndOrder < 0 || o.EndOrder > order) {
			if o.Parallel {
				parallel++
			} else {
				exclusive++
			}
		}
	}
	return parallel, exclusive
}

func checkPoolLimit(x *index, v *violations) {
	for _, r := range x.run.Trace.Tools {
		parallel, exclusive := inFlight(x.run.Trace.Tools, r.StartOrder) // r among them
		switch {
		case !r.Parallel && parallel+exclusive > 1:
			v.add(0, r.StartMs, "exclusive call %s started while %d other call(s) ran", r.CallID, parallel+exclusive-1)
		case r.Parallel && exclusive > 0:
			v.add(0, r.StartMs, "parallel call %s started while an exclusive call ran", r.CallID)
		case r.Parallel && parallel > x.poolLimit():
			v.add(0, r.StartMs, "parallel call %s started with %d calls in flight, above the limit %d", r.CallID, parallel, x.poolLimit())
		}
	}
}

func checkNoTruncatedCalls(x *index, v *violations) {
	x.eachStep(func(t *turnIndex, step int, s *stepIndex) {
		if s.message != nil && s.message.Finish == harness.FinishMaxTokens && len(s.calls) > 0 {
			v.add(s.calls[0].seq, s.calls[0].timeMs, "turn %d step %d: call %s of an answer cut off at max-tokens was dispatched", t.number, step, s.calls[0].data.CallID)
		}
	})
}

// schedulerFailed reports whether the tool executor of a step hit a refused append: then it
// stops dispatching and fabricates no results, by design.
func (x *index) schedulerFailed(turn, step int) bool {
	return x.refusedIn(turn, step, harness.TypeToolCall, harness.TypeToolResult)
}

// poolLimit is the limit the spec sets: the configured one, or the spec's default.
func (x *index) poolLimit() int {
	if x.run.MaxParallelToolCalls == 0 {
		return specPoolLimitDefault
	}
	return x.run.MaxParallelToolCalls
}

func checkToolContextCancelled(x *index, v *violations) {
	for _, run := range x.run.Trace.Tools {
		t := x.turns[run.Turn] // the turn whose answer asked for the call: the one it runs in
		if !run.HonoursCancel || t == nil || run.Outcome == "killed" {
			continue
		}
		cancels := t.cancels
		if len(cancels) == 0 {
			continue
		}
		c := cancels[0]
		if c.AtMs >= run.StartMs && (run.EndMs < 0 || c.AtMs < run.EndMs) {
			v.add(0, c.AtMs, "call %s honours cancellation and was running when its turn was cancelled at +%.3fs, yet ran on to +%.3fs", run.CallID, float64(c.AtMs)/1000, float64(run.EndMs)/1000)
		}
	}
}

// checkPoolRolls is pool-limit's other half: the pool rolls. A parallel call starts a rolling
// pool over the following parallel calls, at most maxParallelToolCalls in flight (spec, tool
// execution), so a call never waits while it could run: the next call, in the model's order,
// starts in the very instant a slot frees for it (a parallel one: no exclusive call running and
// fewer than the limit in flight; an exclusive one: nothing running). A call that never started
// (cancelled, or the executor stopped) is not judged.
func checkPoolRolls(x *index, v *violations) {
	limit := x.poolLimit()
	x.eachStep(func(t *turnIndex, step int, s *stepIndex) {
		var runs []ToolRun // the step's runs, in the order they started
		for _, r := range x.run.Trace.Tools {
			if r.Turn == t.number && r.Step == step {
				runs = append(runs, r)
			}
		}
		slices.SortFunc(runs, func(a, b ToolRun) int { return cmp.Compare(a.StartOrder, b.StartOrder) })
		// The step's calls in the model's order, as dispatched: a call that never ran (an unknown
		// tool's) still takes its turn, alone, so only a call that follows the previous run
		// directly in that order is judged against it.
		order := make([]string, 0, len(s.calls))
		for _, c := range s.calls {
			order = append(order, c.data.CallID)
		}
		for i := 1; i < len(runs); i++ {
			at := slices.Index(order, runs[i].CallID)
			if at < 1 || order[at-1] != runs[i-1].CallID {
				continue
			}
			if readyMs, ok := slotFreed(runs[:i], runs[i], limit); ok && readyMs < runs[i].StartMs {
				v.add(0, runs[i].StartMs, "turn %d step %d: call %s started at +%dms, though a slot was free for it from +%dms (limit %d): the pool did not roll", runs[i].Turn, runs[i].Step, runs[i].CallID, runs[i].StartMs, readyMs, limit)
			}
		}
	})
}

// slotFreed is the first instant, from the start of the call before r on, at which r could run
// beside the calls started before it (before), and whether there is one before r started.
func slotFreed(before []ToolRun, r ToolRun, limit int) (int64, bool) {
	// The starts and ends of the calls before r, from the last one's start on, in the order
	// they happened.
	type change struct {
		order, atMs int64
	}
	from := before[len(before)-1].StartOrder
	changes := []change{{from, before[len(before)-1].StartMs}}
	for _, o := range before {
		if o.EndOrder > from && o.EndOrder < r.StartOrder {
			changes = append(changes, change{o.EndOrder, o.EndMs})
		}
	}
	slices.SortFunc(changes, func(a, b change) int { return cmp.Compare(a.order, b.order) })
	for _, c := range changes {
		parallel, exclusive := inFlight(before, c.order)
		free := parallel+exclusive == 0 || (r.Parallel && exclusive == 0 && parallel < limit)
		if free {
			return c.atMs, true
		}
	}
	return 0, false
}
