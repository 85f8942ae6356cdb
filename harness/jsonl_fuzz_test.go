package harness_test

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
)

// everyEventType is a valid log holding every event type and every optional field, as seed.
func everyEventType() []harness.Event {
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
		harness.AssistantMessage{Turn: 1, Step: 1, Message: harness.AssembledMessage{Blocks: []harness.Block{{Type: harness.BlockText, Text: "x"}, {Type: harness.BlockToolCall, CallID: "c1", Name: "ls", Arguments: `{"a":1}`}}}, Finish: harness.FinishToolCalls},
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

var errorLinePrefix = regexp.MustCompile(`^line [1-9][0-9]*: `)

// FuzzReadJSONL: whatever the input, ReadJSONL does not panic; an error names its line first
// ("line N: …"); and what it accepts survives a round trip through WriteJSONL unchanged.
//
// The round trip is compared on events, not on bytes: the reader accepts spellings the writer
// never produces (keys in any letter case or order, insignificant whitespace, escapes, 1e2 for
// 100, "\r\n" line ends, invalid UTF-8 that decodes to U+FFFD), and those are normalised on the
// way in.
func FuzzReadJSONL(f *testing.F) {
	var valid bytes.Buffer
	if err := harness.WriteJSONL(&valid, everyEventType()); err != nil {
		f.Fatal(err)
	}
	f.Add(valid.Bytes())
	for _, line := range bytes.SplitAfter(valid.Bytes(), []byte("\n")) {
		f.Add(line)
	}
	for _, seed := range []string{
		"",
		"\n",
		"\r\n",
		valid.String()[:valid.Len()/2],
		`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1}}` + "\r\n" + `{"SEQ":2,"Type":"turn/end","time":1e2,"data":{"turn":1,"reason":{"kind":"completed"}}}`,
		`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1}}` + "\n\n",
		`{"seq":1,"type":"turn/pause","time":0,"data":{}}`,
		`{"seq":1,"type":"turn/start","time":0,"data":null}`,
		`{"seq":1,"type":"turn/start","time":0}`,
		`{"type":"turn/start","time":0,"data":{"turn":1}}`,
		`{"seq":1,"type":"turn/start","time":null,"data":{"turn":1}}`,
		`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1,"extra":true}}`,
		`{"seq":1.5,"type":"turn/start","time":0,"data":{"turn":1}}`,
		`{"seq":1,"type":"llm/retry","time":0,"data":{"delayMs":1e400}}`,
		`{"seq":1,"type":"llm/retry","time":0,"data":{"delayMs":-0,"maxRetries":null,"failure":{"status":99999999999999999999}}}`,
		`{"seq":1,"type":"user/message","time":0,"data":{"message":{"id":"\ud800","text":"` + "\xff\xfe" + `"}}}`,
		`{"seq":1,"type":"assistant/message","time":0,"data":{"message":{"blocks":[]}}}`,
		`{"seq":1,"type":"assistant/message","time":0,"data":{"message":{"blocks":null}}}`,
		`[1,2,3]`,
		`"just a string"`,
		`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1}} trailing`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		events, err := harness.ReadJSONL(bytes.NewReader(input))
		if err != nil {
			require.Regexp(t, errorLinePrefix, err.Error())
			return
		}
		var again bytes.Buffer
		require.NoError(t, harness.WriteJSONL(&again, events))
		back, err := harness.ReadJSONL(&again)
		require.NoError(t, err, "what the reader accepted, the writer writes readably")
		require.Equal(t, events, back)
	})
}
