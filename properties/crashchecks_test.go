package properties

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
)

// When the run is over, the synced bytes must hold every line of the session's log, as written:
// a line the store acknowledged but never synced, or one its torn cut damaged, is a loss.
func TestNoAcknowledgedLossReadsTheSyncedLogAtTheEnd(t *testing.T) {
	settled := []harness.EventData{
		harness.TurnStart{Turn: 1},
		harness.TurnEnd{Turn: 1, Reason: harness.TurnEndReason{Kind: harness.EndCompleted}},
	}
	whole := run(t, settled...)
	whole.Trace.DurableAtEnd = append(bytes.Clone(whole.JSONL), `{"seq":3,"type":"turn/st`...) // more is fine: never acknowledged
	assert.Zero(t, fired(whole)["no-acknowledged-loss"])

	jsonl := bytes.Clone(whole.JSONL)
	firstLine := bytes.Clone(jsonl[:bytes.IndexByte(jsonl, '\n')+1])
	for name, durable := range map[string][]byte{
		"the last line not synced":  firstLine,
		"the last line torn":        jsonl[:len(jsonl)-2],
		"the last line glued to it": append(bytes.Clone(firstLine[:len(firstLine)-1]), jsonl[len(firstLine):]...),
	} {
		t.Run(name, func(t *testing.T) {
			r := run(t, settled...)
			r.Trace.DurableAtEnd = durable
			require.Equal(t, 1, fired(r)["no-acknowledged-loss"])
			for _, v := range Check(r) {
				if v.Property == "no-acknowledged-loss" {
					assert.Contains(t, v.Message, "was acknowledged, but at the end of the run the durable log does not hold it as written")
				}
			}
		})
	}
}

// A call is named by its step and its id: ids are unique per step only. A later step's call with
// an earlier step's id is another call; a call of one step dispatched or run in another is the
// same call again.
func TestNoDoubleDispatchNamesCallsByStep(t *testing.T) {
	asks := func(turn, step int, ids ...string) harness.EventData {
		var blocks []harness.Block
		for _, id := range ids {
			blocks = append(blocks, harness.Block{Type: harness.BlockToolCall, CallID: id, Name: "read"})
		}
		return harness.AssistantMessage{Turn: turn, Step: step, Message: harness.AssembledMessage{Blocks: blocks}, Finish: harness.FinishToolCalls}
	}
	call := func(turn, step int, id string) []harness.EventData {
		return []harness.EventData{
			harness.ToolCall{Turn: turn, Step: step, CallID: id, Name: "read"},
			harness.ToolResult{Turn: turn, Step: step, CallID: id, Content: "ok"},
		}
	}
	step := func(turn, n int, asked []string, dispatched ...string) []harness.EventData {
		events := []harness.EventData{harness.StepStart{Turn: turn, Step: n}, asks(turn, n, asked...)}
		for _, id := range dispatched {
			events = append(events, call(turn, n, id)...)
		}
		return append(events, harness.StepEnd{Turn: turn, Step: n})
	}
	turn := func(n int, steps ...[]harness.EventData) []harness.EventData {
		events := []harness.EventData{harness.TurnStart{Turn: n}}
		for _, s := range steps {
			events = append(events, s...)
		}
		return append(events, harness.TurnEnd{Turn: n, Reason: harness.TurnEndReason{Kind: harness.EndCompleted}})
	}
	runOf := func(t *testing.T, runs []ToolRun, turns ...[]harness.EventData) *Run {
		var events []harness.EventData
		for _, tn := range turns {
			events = append(events, tn...)
		}
		r := run(t, events...)
		r.Traced, r.Trace.Tools = true, runs
		return r
	}
	ran := func(turn, step int, id string) ToolRun {
		return ToolRun{Turn: turn, Step: step, CallID: id, Name: "read", Outcome: "ok", EndMs: 1}
	}
	reused := runOf(t, []ToolRun{ran(1, 1, "call-1"), ran(1, 2, "call-1"), ran(2, 1, "call-1")},
		turn(1, step(1, 1, []string{"call-1"}, "call-1"), step(1, 2, []string{"call-1"}, "call-1")),
		turn(2, step(2, 1, []string{"call-1"}, "call-1")))
	assert.Zero(t, fired(reused)["no-double-dispatch"], "%v", Check(reused))

	// turn 2 step 1 dispatches turn 1's call-1 again, before its own answer's call-2
	again := runOf(t, []ToolRun{ran(1, 1, "call-1"), ran(1, 1, "call-1"), ran(2, 1, "call-2")},
		turn(1, step(1, 1, []string{"call-1"}, "call-1")),
		turn(2, step(2, 1, []string{"call-2"}, "call-1", "call-2")))
	assert.Equal(t, 2, fired(again)["no-double-dispatch"], "%v", Check(again)) // dispatched unasked, and ran twice
}
