package eventjson

import (
	"github.com/turnsim/turnsim/harness"
)

// codecEvents builds one event of every type (every optional field set, and not), with text,
// number and delay wherever a string, an int or a float goes.
func codecEvents(text string, number int64, delay float64) []harness.Event {
	n := int(number)
	data := []harness.EventData{
		harness.UserMessage{Message: harness.Message{ID: text, Text: text + "<é>\u2028"}},
		harness.InboxPush{Lane: harness.Lane(text), Kind: harness.KindSteer, MessageID: text},
		harness.InboxClaim{Turn: n, Step: -n, Lane: harness.LaneNextStep, MessageID: text},
		harness.InboxClear{Lane: harness.LaneNextTurn, MessageID: text},
		harness.TurnStart{Turn: n},
		harness.TurnEnd{Turn: n, Reason: harness.TurnEndReason{Kind: harness.EndCompleted}},
		harness.TurnEnd{Turn: n, Reason: harness.TurnEndReason{Kind: harness.EndAborted, Reason: &harness.CancelCause{Kind: text}}},
		harness.TurnEnd{Turn: n, Reason: harness.TurnEndReason{Kind: text, Reason: &harness.CancelCause{Kind: harness.CauseHook, Reason: text},
			Error: &harness.Failure{Code: text, Message: text, Status: n, ProviderRetryAfterMs: delay, RequestID: text}}},
		harness.StepStart{Turn: n, Step: n},
		harness.StepEnd{Turn: 1, Step: n},
		harness.AssistantChunk{Turn: n, Step: 2, Chunk: harness.Chunk{Kind: text}},
		harness.AssistantChunk{Turn: n, Step: 2, Chunk: harness.Chunk{Kind: harness.ChunkToolCall, Text: text, CallID: text, Name: text, Arguments: text, Finish: harness.Finish(text)}},
		harness.AssistantMessage{Turn: n, Step: n, Message: harness.AssembledMessage{}, Finish: harness.Finish(text)},
		harness.AssistantMessage{Turn: n, Step: n, Message: harness.AssembledMessage{Blocks: []harness.Block{}}, Finish: harness.FinishMaxTokens},
		harness.AssistantMessage{Turn: n, Step: n, Message: harness.AssembledMessage{Blocks: []harness.Block{{Type: text},
			{Type: harness.BlockToolCall, Text: text, CallID: text, Name: text, Arguments: text}}}},
		harness.ToolCall{Turn: n, Step: n, CallID: text, Name: text, Arguments: text},
		harness.ToolResult{Turn: n, Step: n, CallID: text, Content: text},
		harness.ToolResult{Turn: n, Step: n, CallID: text, IsError: true, Content: text, Error: &harness.ToolError{Name: text, Code: text, Message: text}},
		harness.LlmRetry{RetryID: text, Turn: n, Step: n, Provider: text, Mode: harness.Mode(text), PolicyKey: text, Retry: n, DelayMs: delay,
			Failure: harness.Failure{Code: text}},
		harness.LlmRetry{RetryID: text, Turn: n, Step: n, Provider: text, Mode: harness.ModeNormal, PolicyKey: text, Retry: n, MaxRetries: &n, DelayMs: -delay,
			Failure: harness.Failure{Code: text, Message: text, Status: 429, ProviderRetryAfterMs: delay, RequestID: text}},
		harness.LlmRetryStarted{RetryID: text, Turn: n, Step: n, Retry: n},
	}
	events := make([]harness.Event, len(data))
	for i, d := range data {
		events[i] = harness.Event{Seq: number + int64(i), Type: d.EventType(), Time: -number, Data: d}
	}
	return events
}

// validLog is a log the invariant layer accepts, holding every event type and every optional
// field.
func validLog() []harness.Event {
	maxRetries := 2
	data := []harness.EventData{
		harness.UserMessage{Message: harness.Message{ID: "m1", Text: "hi <there> & \"you\"\n\u2028é"}},
		harness.InboxPush{Lane: harness.LaneNextTurn, Kind: harness.KindFollowup, MessageID: "m1"},
		harness.TurnStart{Turn: 1},
		harness.StepStart{Turn: 1, Step: 1},
		harness.InboxClaim{Turn: 1, Step: 1, Lane: harness.LaneNextTurn, MessageID: "m1"},
		harness.LlmRetry{RetryID: "r1", Turn: 1, Step: 1, Provider: "p", Mode: harness.ModeNormal, PolicyKey: "k", Retry: 1, MaxRetries: &maxRetries, DelayMs: 512.5,
			Failure: harness.Failure{Code: harness.CodeRateLimit, Message: "429", Status: 429, ProviderRetryAfterMs: 0.25, RequestID: "req-1"}},
		harness.LlmRetryStarted{RetryID: "r1", Turn: 1, Step: 1, Retry: 1},
		harness.AssistantChunk{Turn: 1, Step: 1, Chunk: harness.Chunk{Kind: harness.ChunkToolCall, CallID: "c1", Name: "ls", Arguments: `{"a":1}`}},
		harness.AssistantChunk{Turn: 1, Step: 1, Chunk: harness.Chunk{Kind: harness.ChunkFinish, Finish: harness.FinishToolCalls}},
		harness.AssistantMessage{Turn: 1, Step: 1, Message: harness.AssembledMessage{Blocks: []harness.Block{{Type: harness.BlockText, Text: "x"},
			{Type: harness.BlockToolCall, CallID: "c1", Name: "ls", Arguments: `{"a":1}`}}}, Finish: harness.FinishToolCalls},
		harness.ToolCall{Turn: 1, Step: 1, CallID: "c1", Name: "ls", Arguments: `{"a":1}`},
		harness.ToolResult{Turn: 1, Step: 1, CallID: "c1", IsError: true, Content: "Error: no", Error: &harness.ToolError{Name: "ToolError", Code: harness.CodeToolError, Message: "no"}},
		harness.StepEnd{Turn: 1, Step: 1},
		harness.TurnEnd{Turn: 1, Reason: harness.TurnEndReason{Kind: harness.EndAborted, Reason: &harness.CancelCause{Kind: harness.CauseHook, Reason: "budget"}}},
		harness.InboxPush{Lane: harness.LaneNextStep, Kind: harness.KindSteer, MessageID: "m2"},
		harness.InboxClear{Lane: harness.LaneNextStep, MessageID: "m2"},
		harness.TurnStart{Turn: 2},
		harness.TurnEnd{Turn: 2, Reason: harness.TurnEndReason{Kind: harness.EndError, Error: &harness.Failure{Code: harness.CodeUnknown, Message: "boom"}}},
	}
	events := make([]harness.Event, len(data))
	for i, d := range data {
		events[i] = harness.Event{Seq: int64(i + 1), Type: d.EventType(), Time: 1_700_000_000_000 + int64(i)*250, Data: d}
	}
	return events
}
