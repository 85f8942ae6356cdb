package properties

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/turnsim/turnsim/harness"
)

// no-double-dispatch and chain-budget once mapped the calls dispatched and run and the chains'
// counts; they now search a run's few. On random runs, broken ones included (turn and step
// numbers started twice, calls dispatched twice, runs repeated), each finds what its maps version
// found, message for message.
func TestCrashAndChainChecksAreTheirMapsVersions(t *testing.T) {
	holdToMapsVersions(t, randomDispatchRun, []mapsVersion{
		{"no-double-dispatch", checkNoDoubleDispatch, checkNoDoubleDispatchByMaps},
		{"chain-budget", checkChainBudget, checkChainBudgetByMaps},
	})
}

// interrupted-turns and retry-started-on-time changed only how they look up the repaired turns
// and a retry's start (repairedByRestart, startedFor): on the same random runs each lookup
// answers what a map answered, the last start of an id and number winning, as the map's last
// write did.
func TestRepairedTurnAndRetryStartLookupsAreMaps(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := randomDispatchRun(t)
		x := newIndex(r)
		repaired := map[int]bool{}
		for _, restart := range r.Trace.Restarts {
			if restart.RepairedTurn > 0 {
				repaired[restart.RepairedTurn] = true
			}
		}
		for n := -1; n <= 4; n++ {
			require.Equal(t, repaired[n], x.repairedByRestart(n), "turn %d", n)
		}
		type retryKey struct {
			id    string
			retry int
		}
		started := map[retryKey]eventAt[harness.LlmRetryStarted]{}
		for _, s := range x.started {
			started[retryKey{s.data.RetryID, s.data.Retry}] = s
		}
		for _, retry := range x.retries {
			want, wantOK := started[retryKey{retry.data.RetryID, retry.data.Retry}]
			got, ok := x.startedFor(retry.data)
			require.Equal(t, wantOK, ok, "retry %s #%d", retry.data.RetryID, retry.data.Retry)
			require.Equal(t, want, got, "retry %s #%d", retry.data.RetryID, retry.data.Retry)
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
				r.Log = append(r.Log, harness.Event{Seq: int64(len(r.Log) + 1), Type: retry.EventType(), Time: int64(i), Data: retry})
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
