package harness

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// codecEvents builds one event of every type (every optional field set, and not), with text,
// number and delay wherever a string, an int or a float goes.
func codecEvents(text string, number int64, delay float64) []Event {
	n := int(number)
	data := []EventData{
		UserMessage{Message: Message{ID: text, Text: text + "<é>\u2028"}},
		InboxPush{Lane: Lane(text), Kind: KindSteer, MessageID: text},
		InboxClaim{Turn: n, Step: -n, Lane: LaneNextStep, MessageID: text},
		InboxClear{Lane: LaneNextTurn, MessageID: text},
		TurnStart{Turn: n},
		TurnEnd{Turn: n, Reason: TurnEndReason{Kind: EndCompleted}},
		TurnEnd{Turn: n, Reason: TurnEndReason{Kind: EndAborted, Reason: &CancelCause{Kind: text}}},
		TurnEnd{Turn: n, Reason: TurnEndReason{Kind: text, Reason: &CancelCause{Kind: CauseHook, Reason: text}, Error: &Failure{Code: text, Message: text, Status: n, ProviderRetryAfterMs: delay, RequestID: text}}},
		StepStart{Turn: n, Step: n},
		StepEnd{Turn: 1, Step: n},
		AssistantChunk{Turn: n, Step: 2, Chunk: Chunk{Kind: text}},
		AssistantChunk{Turn: n, Step: 2, Chunk: Chunk{Kind: ChunkToolCall, Text: text, CallID: text, Name: text, Arguments: text, Finish: Finish(text)}},
		AssistantMessage{Turn: n, Step: n, Message: AssembledMessage{}, Finish: Finish(text)},
		AssistantMessage{Turn: n, Step: n, Message: AssembledMessage{Blocks: []Block{}}, Finish: FinishMaxTokens},
		AssistantMessage{Turn: n, Step: n, Message: AssembledMessage{Blocks: []Block{{Type: text}, {Type: BlockToolCall, Text: text, CallID: text, Name: text, Arguments: text}}}},
		ToolCall{Turn: n, Step: n, CallID: text, Name: text, Arguments: text},
		ToolResult{Turn: n, Step: n, CallID: text, Content: text},
		ToolResult{Turn: n, Step: n, CallID: text, IsError: true, Content: text, Error: &ToolError{Name: text, Code: text, Message: text}},
		LlmRetry{RetryID: text, Turn: n, Step: n, Provider: text, Mode: Mode(text), PolicyKey: text, Retry: n, DelayMs: delay, Failure: Failure{Code: text}},
		LlmRetry{RetryID: text, Turn: n, Step: n, Provider: text, Mode: ModeNormal, PolicyKey: text, Retry: n, MaxRetries: &n, DelayMs: -delay, Failure: Failure{Code: text, Message: text, Status: 429, ProviderRetryAfterMs: delay, RequestID: text}},
		LlmRetryStarted{RetryID: text, Turn: n, Step: n, Retry: n},
	}
	events := make([]Event, len(data))
	for i, d := range data {
		events[i] = Event{Seq: number + int64(i), Type: d.EventType(), Time: -number, Data: d}
	}
	return events
}

// requireSameDecoding decodes line through UnmarshalJSON (the fast path, falling back) and
// through encoding/json alone: the same event or the same error.
func requireSameDecoding(t *testing.T, line []byte) {
	var fast, standard Event
	errFast := fast.UnmarshalJSON(line)
	errStandard := standard.unmarshalStandard(line)
	if errStandard != nil {
		require.EqualError(t, errFast, errStandard.Error(), "line %q", line)
		_, ok := decodeEventFast(line)
		require.False(t, ok, "the fast path accepted a line encoding/json refuses: %q", line)
		return
	}
	require.NoError(t, errFast, "line %q", line)
	require.Equal(t, standard, fast, "line %q", line)
}

// requireSameAsUnmarshal decodes line with DecodeEvent and with json.Unmarshal, which checks the
// whole line's syntax before Event.UnmarshalJSON sees it: the same event or the same error.
func requireSameAsUnmarshal(t *testing.T, line []byte) {
	var want Event
	errWant := json.Unmarshal(line, &want)
	got, err := DecodeEvent(line)
	if errWant != nil {
		require.EqualError(t, err, errWant.Error(), "line %q", line)
		return
	}
	require.NoError(t, err, "line %q", line)
	require.Equal(t, want, got, "line %q", line)
}

// requireSameEncoding encodes e by hand and with encoding/json: the same bytes or both refused.
func requireSameEncoding(t *testing.T, e Event) {
	want, errWant := json.Marshal(e)
	got, errGot := EncodeEvent(e)
	if errWant != nil {
		require.Error(t, errGot, "%+v", e)
		return
	}
	require.NoError(t, errGot)
	require.Equal(t, string(want), string(got))
}

// FuzzEventCodecMatchesEncodingJSON: the hand-written event codec is encoding/json, byte for
// byte and error for error. Any line decodes (or fails) exactly as encoding/json decodes it,
// and any event of the fourteen types, whatever its strings and numbers (invalid UTF-8, HTML
// characters, NaN), encodes to the bytes json.Marshal writes, which decode back the same way.
func FuzzEventCodecMatchesEncodingJSON(f *testing.F) {
	for _, e := range codecEvents("a \"quoted\" <b>&\\ \t\x01 é \xff", 7, 512.5) {
		line, err := EncodeEvent(e)
		require.NoError(f, err)
		f.Add(line, "x", int64(1), 0.25)
	}
	for _, line := range codecFallbackLines {
		f.Add([]byte(line), "\xed\xa0\x80", int64(-1), math.Inf(1))
	}
	for _, line := range codecEdgeLines {
		f.Add([]byte(line), "", int64(math.MinInt64), 0.0)
	}
	f.Add([]byte(`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1}}`), "{\"a\":1}", int64(math.MaxInt64), 1e-7)
	f.Fuzz(func(t *testing.T, line []byte, text string, number int64, delay float64) {
		requireSameDecoding(t, line)
		requireSameAsUnmarshal(t, line)
		for _, e := range codecEvents(text, number, delay) {
			requireSameEncoding(t, e)
			if encoded, err := EncodeEvent(e); err == nil {
				requireSameDecoding(t, encoded)
			}
		}
	})
}

// codecFallbackLines are spellings the fast path leaves to encoding/json, each for its own reason.
var codecFallbackLines = []string{
	`{"seq":1,"type":"turn/start","time":0,"data":{"Turn":1}}`,                          // another letter case
	`{"SEQ":1,"type":"turn/start","time":0,"data":{"turn":1}}`,                          // another letter case, outside
	`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1,"turn":2}}`,                 // a repeated key
	`{"seq":1,"type":"turn/start","time":0,"data":{"turn":null}}`,                       // null
	`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1e2}}`,                        // an exponent for an int
	`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1.0}}`,                        // a fraction for an int
	`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1,"x":2}}`,                    // an unknown field in data
	`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1},"x":2}`,                    // an unknown field outside
	`{"data":{"turn":1},"seq":1,"type":"turn/start","time":0}`,                          // data before type
	`{"seq":1,"type":"turn/start","data":{"turn":1}}`,                                   // no time
	`{"seq":1,"type":"turn/stop","time":0,"data":{"turn":1}}`,                           // an unknown type
	`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1}} x`,                        // trailing data
	`{"seq":1,"type":"turn/start","time":0,"data":{"turn":99999999999999999999}}`,       // overflow
	`{"seq":1,"type":"user/message","time":0,"data":{"message":{"id":"\'","text":""}}}`, // an escape JSON lacks
	`{"seq":1,"type":"user/message","time":0,"data":{"message":{"id":"\ud83d\ude00 \ud800x \u00e9","text":"a\/b"}}}`,
	`{"seq":1,"type":"tool/result","time":0,"data":{"turn":1,"step":1,"callId":"c","isError":tru,"content":""}}`,
	`{"seq":1,"type":"llm/retry","time":0,"data":{"delayMs":1e400}}`,
	` {"seq" : 1 , "type":"step/end",` + "\n\t" + `"time":-0,"data":{ }} `,
	`{"seq":01,"type":"step/end","time":0,"data":{}}`,
	`{"seq":1,"type":"assistant/message","time":0,"data":{"message":{"blocks":null}}}`,
	`{"seq":1,"type":"assistant/message","time":0,"data":{"message":{"blocks":[{"type":"text"},]}}}`,
	"",
	"{",
	`{"seq":1,"type":"` + strings.Repeat("é", 3) + "\xff" + `","time":0,"data":{}}`,
}

// codecEdgeLines sit at the edges of the fast path's own shortcuts: integers added up digit by
// digit up to 18 digits and left to strconv beyond (the int64 limits, one past them), spacing
// around every key that the scan checks for only after missing the byte the encoder writes, and
// repeated keys (alike in length and first byte, or not) and empty ones.
var codecEdgeLines = []string{
	`{"seq":999999999999999999,"type":"step/end","time":-999999999999999999,"data":{"turn":1,"step":2}}`,
	`{"seq":9223372036854775807,"type":"step/end","time":-9223372036854775808,"data":{"turn":1,"step":2}}`,
	`{"seq":9223372036854775808,"type":"step/end","time":0,"data":{"turn":1,"step":2}}`,
	`{"seq":1,"type":"step/end","time":-9223372036854775809,"data":{"turn":1,"step":2}}`,
	`{"seq":-0,"type":"step/end","time":0,"data":{"turn":-01,"step":2}}`,
	`{"seq":1,"type":"step/end","time":0,"data":{"turn":-,"step":2}}`,
	`{"seq":1,"type":"step/end","time":0,"data":{"turn":1.5e3,"step":2}}`,
	`{"seq":1,"type":"step/end","time":0,"data":{"turn":1E+2,"step":2}}`,
	`{"seq":1 ,"type" :"step/end", "time": 0 ,` + "\r\n" + `"data":{"turn" : 1 ,"step":2 } }`,
	`{"seq":1,"type":"step/end","time":0,"data":{,"turn":1}}`,
	`{"seq":1,"type":"step/end","time":0,"data":{"turn":1 "step":2}}`,
	`{"seq":1,"type":"tool/call","time":0,"data":{"turn":1,"step":2,"callId":"c","name":"n","arguments":"{}","turn":3}}`,
	`{"seq":1,"type":"tool/call","time":0,"data":{"turn":1,"step":2,"turn":1}}`,
	`{"seq":1,"type":"tool/call","time":0,"data":{"":1}}`,
	`{"seq":1,"type":"tool/call","time":0,"data":{"turn":1,"step":2,"callId":"c\u0041","name":"a long plain name of more than eight bytes"}}`,
	// The encoder's spelling read as a straight line up to a difference, then read again by the
	// loop over the members: optional keys out of order, a repeat after the last one, spacing.
	`{"seq":1,"type":"assistant/chunk","time":0,"data":{"turn":1,"step":2,"chunk":{"kind":"k","name":"n","text":"t"}}}`,
	`{"seq":1,"type":"turn/end","time":0,"data":{"turn":1,"reason":{"kind":"aborted","error":{"code":"c","message":"m","status":500},"reason":{"kind":"user"}}}}`,
	`{"seq":1,"type":"llm/retry","time":0,"data":{"retryId":"r","turn":1,"step":1,"provider":"p","mode":"normal","policyKey":"k","retry":1,"delayMs":5,"maxRetries":3,"failure":{"code":"c","message":"m"}}}`,
	`{"seq":1,"type":"tool/result","time":0,"data":{"turn":1,"step":2,"callId":"c","isError":true,"content":"x","error":{"name":"n","code":"c","message":"m"},"turn":3}}`,
	`{"seq":1,"type":"step/end","time":0,"data":{"turn":1,"step":2}}` + " \t",
	`{"seq":1,"type":"inbox/claim","time":0,"data":{"turn":1,"step":2,"lane":"next-step" ,"messageId":"m"}}`,
}

// Every fallback spelling, and every edge of the fast path, gets encoding/json's answer, and the
// lines the harness writes take the fast path.
func TestEventCodecFallsBackExactly(t *testing.T) {
	for _, line := range append(codecFallbackLines, codecEdgeLines...) {
		requireSameDecoding(t, []byte(line))
		requireSameAsUnmarshal(t, []byte(line))
	}
	for _, e := range codecEvents("plain", 3, 12) {
		line, err := EncodeEvent(e)
		require.NoError(t, err)
		_, ok := decodeEventFast(line)
		require.True(t, ok, "the fast path reads what the harness writes: %s", line)
	}
}
