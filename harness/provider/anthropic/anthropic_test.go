package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/provider/anthropic"
	"github.com/turnsim/turnsim/harness/provider/internal/wiretest"
)

func newProvider(t *testing.T, url string, timeout time.Duration) *anthropic.Provider {
	t.Helper()
	p, err := anthropic.New(anthropic.Config{BaseURL: url, APIKey: "test-key", Model: "test-model", Timeout: timeout, Clock: wiretest.FixedClock{}})
	require.NoError(t, err)
	return p
}

var oneUser = harness.Request{Messages: []harness.Entry{{Role: harness.RoleUser, Text: "hi"}}, Tools: []string{"echo"}}

func drain(ctx context.Context, p harness.Provider) ([]harness.Chunk, error) {
	s, err := p.Stream(ctx, oneUser)
	if err != nil {
		return nil, err
	}
	var chunks []harness.Chunk
	for {
		c, err := s.Next(ctx)
		if errors.Is(err, io.EOF) {
			return chunks, nil
		}
		if err != nil {
			return chunks, err
		}
		chunks = append(chunks, c)
	}
}

func failureOf(t *testing.T, err error) harness.Failure {
	t.Helper()
	var llm *harness.LlmError
	require.ErrorAs(t, err, &llm, "want an LlmError, got %v", err)
	return llm.Failure
}

func ev(kind, data string) string { return "event: " + kind + "\ndata: " + data }

const start = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"usage":{"input_tokens":1,"output_tokens":0}}}`

func textStart(i int) string {
	return ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, i))
}

func text(i int, s string) string {
	b, _ := json.Marshal(s)
	return ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, i, b))
}

func blockStop(i int) string {
	return ev("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
}

func stopWith(reason string) []string {
	return []string{
		ev("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":5}}`, reason)),
		ev("message_stop", `{"type":"message_stop"}`),
	}
}

func TestStatusMapping(t *testing.T) {
	for _, tc := range wiretest.StatusCases {
		t.Run(tc.Name, func(t *testing.T) {
			srv := wiretest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("request-id", "req_123")
				w.Header().Set("retry-after-ms", "1234")
				w.WriteHeader(tc.Status)
				_, _ = io.WriteString(w, wiretest.BodyFor(tc.Anthropic, `{"type":"error","error":{"type":"some_error","message":"it failed"}}`))
			})
			_, err := drain(context.Background(), newProvider(t, srv.URL, 5*time.Second))
			f := failureOf(t, err)
			assert.Equal(t, tc.Code, f.Code)
			assert.Equal(t, tc.Status, f.Status, "the status is kept")
			assert.Equal(t, "req_123", f.RequestID)
			if tc.NoHint {
				assert.Zero(t, f.ProviderRetryAfterMs)
			} else {
				assert.Equal(t, 1234.0, f.ProviderRetryAfterMs)
			}
			assert.NotEmpty(t, f.Message)
			assert.EqualValues(t, 1, srv.Requests.Load(), "the SDK's own retries are off: one call, one request")
		})
	}
}

func TestRetryAfterForms(t *testing.T) {
	for _, tc := range wiretest.RetryAfterCases() {
		t.Run(tc.Name, func(t *testing.T) {
			srv := wiretest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tc.Header {
					w.Header()[k] = v
				}
				w.WriteHeader(529)
				_, _ = io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
			})
			_, err := drain(context.Background(), newProvider(t, srv.URL, 5*time.Second))
			f := failureOf(t, err)
			assert.Equal(t, harness.CodeServer, f.Code)
			assert.Equal(t, tc.WantMs, f.ProviderRetryAfterMs)
		})
	}
}

func TestStreamsTextToolCallsAndFinish(t *testing.T) {
	var body map[string]any
	srv := wiretest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		assert.Contains(t, r.Header.Get("X-Api-Key")+r.Header.Get("Authorization"), "test-key", "the key is sent as the SDK sends it")
		assert.Equal(t, "/v1/messages", r.URL.Path)
		assert.NoError(t, json.NewDecoder(r.Body).Decode(&body))
		send := wiretest.SSE(w)
		for _, b := range []string{
			ev("message_start", start), ev("ping", `{"type":"ping"}`),
			textStart(0), text(0, "Let me "), text(0, "look."), blockStop(0),
			ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_a","name":"echo","input":{}}}`),
			ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"y\":"}}`),
			ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"2}"}}`),
			blockStop(1),
			ev("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_b","name":"echo","input":{}}}`),
			blockStop(2),
		} {
			send(b)
		}
		for _, b := range stopWith("tool_use") {
			send(b)
		}
	})
	chunks, err := drain(context.Background(), newProvider(t, srv.URL, 5*time.Second))
	require.NoError(t, err)
	assert.Equal(t, []harness.Chunk{
		{Kind: harness.ChunkText, Text: "Let me "},
		{Kind: harness.ChunkText, Text: "look."},
		{Kind: harness.ChunkToolCall, CallID: "toolu_a", Name: "echo", Arguments: `{"y":2}`},
		{Kind: harness.ChunkToolCall, CallID: "toolu_b", Name: "echo", Arguments: `{}`},
		{Kind: harness.ChunkFinish, Finish: harness.FinishToolCalls},
	}, chunks)
	assert.Equal(t, true, body["stream"])
	assert.Equal(t, "test-model", body["model"])
	assert.EqualValues(t, anthropic.DefaultMaxTokens, body["max_tokens"])
}

func TestRequestCarriesTheConversation(t *testing.T) {
	var body struct {
		Messages []struct {
			Role    string           `json:"role"`
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	srv := wiretest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		assert.NoError(t, json.NewDecoder(r.Body).Decode(&body))
		send := wiretest.SSE(w)
		for _, b := range append([]string{ev("message_start", start), textStart(0), text(0, "ok"), blockStop(0)}, stopWith("end_turn")...) {
			send(b)
		}
	})
	req := harness.Request{Messages: []harness.Entry{
		{Role: harness.RoleUser, Text: "hi"},
		{Role: harness.RoleAssistant, Blocks: []harness.Block{{Type: harness.BlockText, Text: "calling"}, {Type: harness.BlockToolCall, CallID: "c1", Name: "echo", Arguments: `{"a":1}`}}},
		{Role: harness.RoleTool, CallID: "c1", Text: "echoed", IsError: true},
		{Role: harness.RoleUser, Text: "and then?"},
	}}
	s, err := newProvider(t, srv.URL, 5*time.Second).Stream(context.Background(), req)
	require.NoError(t, err)
	_, err = s.Next(context.Background())
	require.NoError(t, err)
	require.Len(t, body.Messages, 3, "the tool result and the next user text share one user message")
	assert.Equal(t, "assistant", body.Messages[1].Role)
	assert.Equal(t, "tool_use", body.Messages[1].Content[1]["type"])
	assert.Equal(t, map[string]any{"a": 1.0}, body.Messages[1].Content[1]["input"])
	assert.Equal(t, "tool_result", body.Messages[2].Content[0]["type"])
	assert.Equal(t, "c1", body.Messages[2].Content[0]["tool_use_id"])
	assert.Equal(t, true, body.Messages[2].Content[0]["is_error"])
}

func TestFinishReasons(t *testing.T) {
	for reason, want := range map[string]harness.Finish{"end_turn": harness.FinishCompleted, "max_tokens": harness.FinishMaxTokens, "stop_sequence": harness.FinishCompleted} {
		t.Run(reason, func(t *testing.T) {
			srv := wiretest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
				send := wiretest.SSE(w)
				for _, b := range append([]string{ev("message_start", start), textStart(0), text(0, "some text"), blockStop(0)}, stopWith(reason)...) {
					send(b)
				}
			})
			chunks, err := drain(context.Background(), newProvider(t, srv.URL, 5*time.Second))
			require.NoError(t, err)
			require.NotEmpty(t, chunks)
			assert.Equal(t, harness.Chunk{Kind: harness.ChunkFinish, Finish: want}, chunks[len(chunks)-1])
		})
	}
}

func TestStreamFailures(t *testing.T) {
	play := func(blocks ...string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			send := wiretest.SSE(w)
			for _, b := range blocks {
				send(b)
			}
		}
	}
	cases := []struct {
		name    string
		handler http.HandlerFunc
		code    string
		chunks  int
	}{
		{"in-stream overloaded", play(ev("message_start", start), textStart(0), text(0, "part 1 "),
			ev("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)), harness.CodeServer, 1},
		{"in-stream api error", play(ev("error", `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`)), harness.CodeServer, 0},
		{"in-stream other error", play(ev("error", `{"type":"error","error":{"type":"permission_error","message":"no"}}`)), harness.CodeUnknown, 0},
		{"cut before the finish", play(ev("message_start", start), textStart(0), text(0, "part 1 "), text(0, "part 2 ")), harness.CodeTransport, 2},
		{"connection reset mid-answer", func(w http.ResponseWriter, r *http.Request) {
			send := wiretest.SSE(w)
			send(ev("message_start", start))
			send(textStart(0))
			send(text(0, "part 1 "))
			wiretest.Reset(w)
		}, harness.CodeTransport, 1},
		{"malformed event", play(ev("message_start", start), textStart(0), text(0, "part 1 "), ev("content_block_delta", `{"type":"content_block_delta","index":`)), harness.CodeTransport, 1},
		{"malformed error event", play(ev("error", `not json at all`)), harness.CodeTransport, 0},
		{"finish with no content", play(append([]string{ev("message_start", start)}, stopWith("end_turn")...)...), harness.CodeEmptyResponse, 0},
		{"nothing at all", play(), harness.CodeEmptyResponse, 0},
		{"context window filled mid-answer", play(append([]string{ev("message_start", start), textStart(0), text(0, "part 1 ")}, stopWith("model_context_window_exceeded")...)...), harness.CodeContextWindowExceeded, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := wiretest.Serve(t, tc.handler)
			chunks, err := drain(context.Background(), newProvider(t, srv.URL, 5*time.Second))
			assert.Equal(t, tc.code, failureOf(t, err).Code, "error: %v", err)
			assert.Len(t, chunks, tc.chunks)
		})
	}
}

func TestConnectionRefusedIsTransport(t *testing.T) {
	_, err := drain(context.Background(), newProvider(t, wiretest.RefusedURL(t), 5*time.Second))
	assert.Equal(t, harness.CodeTransport, failureOf(t, err).Code)
}

func TestRequestTimeoutIsTimeout(t *testing.T) {
	for _, where := range []string{"before the headers", "mid-stream"} {
		t.Run(where, func(t *testing.T) {
			srv := wiretest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
				if where == "mid-stream" {
					wiretest.SSE(w)(ev("message_start", start))
				}
				wiretest.Stall(r)
			})
			begin := time.Now()
			_, err := drain(context.Background(), newProvider(t, srv.URL, 200*time.Millisecond))
			assert.Equal(t, harness.CodeTimeout, failureOf(t, err).Code)
			assert.Less(t, time.Since(begin), wiretest.MaxStall, "the timeout, not the server, ended it")
		})
	}
}

func TestCancelInterruptsAStalledStream(t *testing.T) {
	srv := wiretest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		send := wiretest.SSE(w)
		send(ev("message_start", start))
		send(textStart(0))
		send(text(0, "part 1 "))
		wiretest.Stall(r)
	})
	s, err := newProvider(t, srv.URL, 0).Stream(context.Background(), oneUser)
	require.NoError(t, err)
	_, err = s.Next(context.Background())
	require.NoError(t, err)
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("user pressed stop")
	time.AfterFunc(50*time.Millisecond, func() { cancel(cause) })
	begin := time.Now()
	_, err = s.Next(ctx)
	assert.ErrorIs(t, err, cause, "a cancel is no provider failure: the cause comes back")
	var llm *harness.LlmError
	assert.False(t, errors.As(err, &llm))
	assert.Less(t, time.Since(begin), wiretest.MaxStall)
}

func TestConfigIsChecked(t *testing.T) {
	for name, cfg := range map[string]anthropic.Config{
		"no base url": {Model: "m", Clock: wiretest.FixedClock{}},
		"no model":    {BaseURL: "http://127.0.0.1:1", Clock: wiretest.FixedClock{}},
		"no clock":    {BaseURL: "http://127.0.0.1:1", Model: "m"},
		"negative":    {BaseURL: "http://127.0.0.1:1", Model: "m", Clock: wiretest.FixedClock{}, MaxTokens: -1},
	} {
		_, err := anthropic.New(cfg)
		assert.Error(t, err, name)
	}
}

func TestCancelInterruptsAStallBeforeTheHeaders(t *testing.T) {
	srv := wiretest.Serve(t, func(w http.ResponseWriter, r *http.Request) { wiretest.Stall(r) })
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("user pressed stop")
	time.AfterFunc(50*time.Millisecond, func() { cancel(cause) })
	begin := time.Now()
	_, err := newProvider(t, srv.URL, 0).Stream(ctx, oneUser)
	assert.ErrorIs(t, err, cause, "a cancel is no provider failure: the cause comes back")
	assert.Less(t, time.Since(begin), wiretest.MaxStall)
}
