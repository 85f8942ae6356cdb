package properties

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/eventjson"
)

func TestCatalogueIsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Catalogue() {
		assert.False(t, seen[p.Name], "duplicate property %s", p.Name)
		seen[p.Name] = true
		assert.NotEmpty(t, p.Doc, p.Name)
		assert.NotNil(t, p.check, p.Name)
	}
	assert.Len(t, Names(), len(Catalogue()))
}

// run builds a Run from payloads (seq and time filled in: each event one ms after the last).
func run(t *testing.T, data ...harness.EventData) *Run {
	r := &Run{Policy: harness.DefaultRetryPolicy(), MaxParallelToolCalls: 2, ParallelTools: []string{"read"}, HorizonMs: 10, LivenessBoundMs: 100}
	for i, d := range data {
		r.Log = append(r.Log, harness.Event{Seq: int64(i + 1), Type: d.EventType(), Time: int64(i), Data: d})
	}
	var buf bytes.Buffer
	require.NoError(t, eventjson.Write(&buf, r.Log))
	r.JSONL = buf.Bytes()
	r.Trace.IdleAtMs = int64(len(data))
	return r
}

func fired(r *Run) map[string]int {
	out := map[string]int{}
	for _, v := range Check(r) {
		out[v.Property]++
	}
	return out
}

func TestASettledTurnBreaksNothing(t *testing.T) {
	r := settledTurn(t)
	assert.Empty(t, Check(r))
}

func TestHandMadeBreakages(t *testing.T) {
	maxTokensThenCompleted := []harness.EventData{
		harness.TurnStart{Turn: 1},
		harness.StepStart{Turn: 1, Step: 1},
		harness.AssistantMessage{Turn: 1, Step: 1, Finish: harness.FinishMaxTokens},
		harness.StepEnd{Turn: 1, Step: 1},
		harness.TurnEnd{Turn: 1, Reason: harness.TurnEndReason{Kind: harness.EndCompleted}},
	}
	unsettled := []harness.EventData{harness.TurnStart{Turn: 1}}
	unpaired := []harness.EventData{
		harness.TurnStart{Turn: 1},
		harness.StepStart{Turn: 1, Step: 1},
		harness.ToolCall{Turn: 1, Step: 1, CallID: "c1", Name: "read"},
		harness.StepEnd{Turn: 1, Step: 1},
		harness.TurnEnd{Turn: 1, Reason: harness.TurnEndReason{Kind: harness.EndCompleted}},
	}
	aborted := []harness.EventData{
		harness.TurnStart{Turn: 1},
		harness.TurnEnd{Turn: 1, Reason: harness.TurnEndReason{Kind: harness.EndAborted, Reason: &harness.CancelCause{Kind: harness.CauseUser}}},
	}
	cases := map[string]struct {
		events []harness.EventData
		edit   func(r *Run)
		want   string
	}{
		"max-tokens hidden":      {maxTokensThenCompleted, nil, "max-tokens-sticky"},
		"turn never ended":       {unsettled, nil, "turn-settled"},
		"call without result":    {unpaired, nil, "tool-results-paired"},
		"aborted by nothing":     {aborted, nil, "abort-cause"},
		"never idle":             {aborted, func(r *Run) { r.Trace.IdleAtMs = -1 }, "liveness"},
		"scheduler finding":      {aborted, func(r *Run) { r.Trace.Findings = []string{"deadlock: 1 task blocked"} }, "run-completes"},
		"invariant refusal":      {aborted, func(r *Run) { r.Trace.AgentErrors = []AgentError{{Invariant: harness.RuleTurn}} }, "appends-accepted"},
		"when-idle too early":    {unsettled, func(r *Run) { r.Trace.IdleReturns = []IdleReturn{{StartSeq: 1, SeqAt: 1, ToolsRunning: 1}} }, "when-idle-settled"},
		"log does not read back": {aborted, func(r *Run) { r.JSONL = append(r.JSONL, "{oops\n"...) }, "log-replays"},
		"wait without record":    {aborted, func(r *Run) { r.Trace.Waits = []Wait{{DelayMs: 500}} }, "durable-before-wait"},
		"pool over the limit": {aborted, func(r *Run) {
			r.Trace.Tools = []ToolRun{
				{CallID: "a", StartMs: 0, EndMs: 10, Parallel: true, StartOrder: 1, EndOrder: 4},
				{CallID: "b", StartMs: 1, EndMs: 10, Parallel: true, StartOrder: 2, EndOrder: 5},
				{CallID: "c", StartMs: 2, EndMs: 10, Parallel: true, StartOrder: 3, EndOrder: 6},
			}
		}, "pool-limit"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := run(t, c.events...)
			if c.edit != nil {
				c.edit(r)
			}
			assert.Positive(t, fired(r)[c.want], "expected %s to fire; got %v", c.want, Check(r))
		})
	}
}
