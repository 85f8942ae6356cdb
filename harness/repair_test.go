package harness

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRepairClosesTheOpenTurn(t *testing.T) {
	calls := AssembledMessage{Blocks: []Block{
		{Type: BlockToolCall, CallID: "c1", Name: "read"},
		{Type: BlockToolCall, CallID: "c2", Name: "read"},
		{Type: BlockToolCall, CallID: "c3", Name: "write"},
	}}
	cases := []struct {
		name string
		log  []EventData
		want []EventData
	}{
		{"settled log", []EventData{TurnStart{Turn: 1}, TurnEnd{Turn: 1, Reason: TurnEndReason{Kind: EndCompleted}}}, nil},
		{"open turn, no step", []EventData{TurnStart{Turn: 1}}, []EventData{
			TurnEnd{Turn: 1, Reason: TurnEndReason{Kind: EndInterrupted}},
		}},
		{"mid-stream", []EventData{TurnStart{Turn: 1}, StepStart{Turn: 1, Step: 1}, AssistantChunk{Turn: 1, Step: 1, Chunk: Chunk{Kind: ChunkText, Text: "par"}}}, []EventData{
			StepEnd{Turn: 1, Step: 1},
			TurnEnd{Turn: 1, Reason: TurnEndReason{Kind: EndInterrupted}},
		}},
		{"mid-tool: one done, one running, one never started", []EventData{
			TurnStart{Turn: 1}, StepStart{Turn: 1, Step: 1},
			AssistantMessage{Turn: 1, Step: 1, Message: calls, Finish: FinishToolCalls},
			ToolCall{Turn: 1, Step: 1, CallID: "c1", Name: "read"},
			ToolCall{Turn: 1, Step: 1, CallID: "c2", Name: "read"},
			ToolResult{Turn: 1, Step: 1, CallID: "c1", Content: "ok"},
		}, []EventData{
			errorResult(ToolResult{Turn: 1, Step: 1, CallID: "c2"}, outcomeUnknown),
			errorResult(ToolResult{Turn: 1, Step: 1, CallID: "c3"}, notStarted),
			StepEnd{Turn: 1, Step: 1},
			TurnEnd{Turn: 1, Reason: TurnEndReason{Kind: EndInterrupted}},
		}},
		{"a truncated answer's calls are owed nothing", []EventData{
			TurnStart{Turn: 1}, StepStart{Turn: 1, Step: 1},
			AssistantMessage{Turn: 1, Step: 1, Message: calls, Finish: FinishMaxTokens},
		}, []EventData{
			StepEnd{Turn: 1, Step: 1},
			TurnEnd{Turn: 1, Reason: TurnEndReason{Kind: EndInterrupted}},
		}},
		{"mid-backoff", []EventData{TurnStart{Turn: 1}, StepStart{Turn: 1, Step: 1}, retryEvent("r1", 1)}, []EventData{
			StepEnd{Turn: 1, Step: 1},
			TurnEnd{Turn: 1, Reason: TurnEndReason{Kind: EndInterrupted}},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			log := logOf(c.log...)
			repair := RepairEvents(log)
			assert.Equal(t, c.want, repair)
			repaired := logOf(append(append([]EventData{}, c.log...), repair...)...)
			require.NoError(t, ValidateLog(repaired), "the repaired log passes the invariant layer")
			assert.Nil(t, RepairEvents(repaired), "repair is idempotent")
		})
	}
}
