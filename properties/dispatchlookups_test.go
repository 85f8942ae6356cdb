package properties

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/turnsim/turnsim/harness"
)

// interrupted-turns, no-double-dispatch, chain-budget and retry-started-on-time once mapped what
// they look up (the repaired turns, the calls dispatched and run, the chains' counts, the
// retries' starts); they now search a run's few. On random runs, broken ones included (turn and
// step numbers started twice, calls dispatched twice, runs repeated), each finds what its maps
// version found, message for message.
func TestCrashAndChainChecksAreTheirMapsVersions(t *testing.T) {
	versions := []struct {
		name        string
		now, before func(*index, *violations)
	}{
		{"interrupted-turns", checkInterruptedTurns, checkInterruptedTurnsByMaps},
		{"no-double-dispatch", checkNoDoubleDispatch, checkNoDoubleDispatchByMaps},
		{"chain-budget", checkChainBudget, checkChainBudgetByMaps},
		{"retry-started-on-time", checkRetryStartedOnTime, checkRetryStartedOnTimeByMaps},
	}
	rapid.Check(t, func(t *rapid.T) {
		r := randomDispatchRun(t)
		for _, version := range versions {
			require.Equal(t, violationsOf(r, version.before), violationsOf(r, version.now), version.name)
		}
	})
}

// randomDispatchRun is a run of few turn and step numbers (repeated at random), whose steps ask
// for and dispatch calls of few ids (some results synthetic), with tool runs, restarts that
// repair turns, crashes, and llm/retry records of few chains and ids, some started.
func randomDispatchRun(t *rapid.T) *Run {
	small := rapid.IntRange(0, 3)
	ids := rapid.SampledFrom([]string{"call_1", "call_2", "call_3"})
	retryIDs := rapid.SampledFrom([]string{"r1", "r2", "r3"})
	names := rapid.SampledFrom([]string{"p", "q"})
	ends := rapid.SampledFrom([]string{harness.EndCompleted, harness.EndInterrupted, harness.EndAborted})
	r := &Run{Traced: true, Trace: Trace{IdleAtMs: -1}}
	r.Policy = harness.RetryPolicy{Mode: harness.ModeNormal, MaxRetries: rapid.IntRange(0, 2).Draw(t, "maxRetries")}
	for i := range rapid.IntRange(0, 40).Draw(t, "events") {
		turn, step := small.Draw(t, "turn"), small.Draw(t, "step")
		var d harness.EventData
		switch rapid.IntRange(0, 7).Draw(t, "kind") {
		case 0:
			d = harness.TurnStart{Turn: turn}
		case 1:
			d = harness.StepStart{Turn: turn, Step: step}
		case 2:
			var blocks []harness.Block
			for _, id := range rapid.SliceOfN(ids, 0, 3).Draw(t, "asked") {
				blocks = append(blocks, harness.Block{Type: harness.BlockToolCall, CallID: id})
			}
			d = harness.AssistantMessage{Turn: turn, Step: step, Message: harness.AssembledMessage{Blocks: blocks}}
		case 3, 4:
			d = harness.ToolCall{Turn: turn, Step: step, CallID: ids.Draw(t, "id")}
		case 5:
			result := harness.ToolResult{Turn: turn, Step: step, CallID: ids.Draw(t, "id")}
			if rapid.Bool().Draw(t, "synthetic") {
				result.Error = &harness.ToolError{Code: harness.CodeToolAbortedBeforeDispatch}
			}
			d = result
		case 6:
			d = harness.TurnEnd{Turn: turn, Reason: harness.TurnEndReason{Kind: ends.Draw(t, "end")}}
		default:
			retry := harness.LlmRetry{RetryID: retryIDs.Draw(t, "retryId"), Turn: turn, Step: step, Provider: names.Draw(t, "provider"),
				PolicyKey: names.Draw(t, "policy"), Retry: small.Draw(t, "retry")}
			d = retry
			if rapid.Bool().Draw(t, "started") {
				r.Log = append(r.Log, harness.Event{Seq: int64(i + 1), Type: retry.EventType(), Time: int64(i), Data: retry})
				d = harness.LlmRetryStarted{RetryID: retryIDs.Draw(t, "startedId"), Turn: turn, Step: step, Retry: small.Draw(t, "startedRetry")}
			}
		}
		r.Log = append(r.Log, harness.Event{Seq: int64(len(r.Log) + 1), Type: d.EventType(), Time: int64(i), Data: d})
	}
	for range rapid.IntRange(0, 6).Draw(t, "tools") {
		r.Trace.Tools = append(r.Trace.Tools, ToolRun{Turn: small.Draw(t, "turn"), Step: small.Draw(t, "step"), CallID: ids.Draw(t, "id"), StartMs: rapid.Int64Range(0, 9).Draw(t, "startMs")})
	}
	for range rapid.IntRange(0, 3).Draw(t, "restarts") {
		r.Trace.Restarts = append(r.Trace.Restarts, Restart{RepairedTurn: rapid.IntRange(-1, 3).Draw(t, "repaired")})
	}
	for range rapid.IntRange(0, 1).Draw(t, "crashes") {
		r.Trace.Crashes = append(r.Trace.Crashes, Crash{})
	}
	for range rapid.IntRange(0, 3).Draw(t, "waits") {
		r.Trace.Waits = append(r.Trace.Waits, Wait{StartMs: rapid.Int64Range(0, 40).Draw(t, "startMs"), EndMs: rapid.Int64Range(-1, 40).Draw(t, "endMs"),
			Cancelled: rapid.Bool().Draw(t, "cancelled"), SeqBefore: rapid.Int64Range(0, int64(len(r.Log))).Draw(t, "seqBefore")})
	}
	return r
}

func checkInterruptedTurnsByMaps(x *index, v *violations) {
	repairedTurns := map[int]bool{}
	for _, r := range x.run.Trace.Restarts {
		if r.RepairedTurn > 0 {
			repairedTurns[r.RepairedTurn] = true
		}
	}
	for _, t := range x.turnList {
		n := t.number
		interrupted := t.end != nil && t.end.Reason.Kind == harness.EndInterrupted
		switch {
		case repairedTurns[n] && !interrupted:
			v.add(t.startSeq, t.startMs, "turn %d was open when the process died, but did not end interrupted", n)
		case interrupted && !repairedTurns[n] && len(x.run.Trace.Crashes) > 0:
			v.add(t.endSeq, t.endMs, "turn %d ended interrupted although no crash left it open", n)
		}
	}
}

func checkNoDoubleDispatchByMaps(x *index, v *violations) {
	dispatched := map[callKey]int64{}
	x.eachStep(func(t *turnIndex, step int, s *stepIndex) {
		for _, c := range s.calls {
			if !askedFor(s, c.data.CallID) {
				v.add(c.seq, c.timeMs, "call %s dispatched in turn %d step %d, whose answer did not ask for it (another step's call dispatched again?)", c.data.CallID, t.number, step)
			}
			if s.syntheticFor(c.data.CallID) {
				continue
			}
			key := callKey{t.number, step, c.data.CallID}
			if first, again := dispatched[key]; again {
				v.add(c.seq, c.timeMs, "call %s of turn %d step %d dispatched again (first at event %d)", c.data.CallID, t.number, step, first)
			}
			dispatched[key] = c.seq
		}
	})
	ran := map[callKey]bool{}
	for _, r := range x.run.Trace.Tools {
		key := callKey{r.Turn, r.Step, r.CallID}
		if ran[key] {
			v.add(0, r.StartMs, "call %s of turn %d step %d ran twice", r.CallID, r.Turn, r.Step)
		}
		ran[key] = true
	}
}

func checkChainBudgetByMaps(x *index, v *violations) {
	count := map[retryChain]int{}
	for _, r := range x.retries {
		mode, budget, _, known := x.limitsFor(r.data)
		if !known || mode != harness.ModeNormal {
			continue
		}
		c := retryChain{r.data.Turn, r.data.Step, r.data.Provider, r.data.PolicyKey}
		count[c]++
		if count[c] == budget+1 {
			v.add(r.seq, r.timeMs, "the chain of turn %d step %d holds %d retries, above its budget %d", c.turn, c.step, count[c], budget)
		}
	}
}

func checkRetryStartedOnTimeByMaps(x *index, v *violations) {
	// Keyed by a struct, not [2]any: boxing the id and the number cost two allocations a lookup.
	type retryKey struct {
		id    string
		retry int
	}
	started := make(map[retryKey]eventAt[harness.LlmRetryStarted], len(x.started))
	for _, s := range x.started {
		started[retryKey{s.data.RetryID, s.data.Retry}] = s
	}
	for _, r := range x.retries {
		s, ok := started[retryKey{r.data.RetryID, r.data.Retry}]
		if ok && !onTime(s.timeMs-r.timeMs, r.data.DelayMs, x.run.LateMs) {
			v.add(s.seq, s.timeMs, "llm/retry-started #%d came %d ms after its llm/retry, not delayMs %g%s", r.data.Retry, s.timeMs-r.timeMs, r.data.DelayMs, lateText(x.run.LateMs))
		}
		w, waited := x.waitFor(r.seq)
		if !waited || w.EndMs < 0 {
			continue // no trace (a log checked on its own), or the process died mid-wait
		}
		turn := x.turn(r.data.Turn)
		endedEarly := turn != nil && turn.end != nil && ((turn.end.Reason.Kind == harness.EndAborted && turn.endMs <= w.StartMs+int64(w.DelayMs)) || turn.end.Reason.Kind == harness.EndInterrupted)
		// A cancel in the very instant the wait ran out beats the retry, even when no aborted
		// turn/end says so (the store refused it).
		endedEarly = endedEarly || (turn != nil && x.cancelledBy(turn, w.EndMs))
		switch {
		case ok && w.Cancelled:
			v.add(s.seq, s.timeMs, "llm/retry-started #%d written although its wait was cancelled", r.data.Retry)
		case !ok && !w.Cancelled && !endedEarly && !x.refusedIn(r.data.Turn, r.data.Step, harness.TypeLlmRetryStarted) && !x.pluginEndedBefore(w.EndMs):
			v.add(r.seq, r.timeMs, "llm/retry #%d's wait ran out uncancelled, but no llm/retry-started followed", r.data.Retry)
		}
	}
}
