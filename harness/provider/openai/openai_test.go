package openai_test

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
	"github.com/turnsim/turnsim/harness/provider/internal/wiretest"
	"github.com/turnsim/turnsim/harness/provider/openai"
)

func newProvider(t *testing.T, url string, timeout time.Duration) *openai.Provider {
	t.Helper()
	p, err := openai.New(openai.Config{BaseURL: url + "/v1", APIKey: "test-key", Model: "test-model", Timeout: timeout, Clock: wiretest.FixedClock{}})
	require.NoError(t, err)
	return p
}

var oneUser = harness.Request{Messages: []harness.Entry{{Role: harness.RoleUser, Text: "hi"}}, Tools: []string{"echo"}}

// drain reads a stream to its end: the chunks, and the error that ended it (nil for io.EOF).
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

func delta(content string, finish string) string {
	fr := "null"
	if finish != "" {
		fr = fmt.Sprintf("%q", finish)
	}
	c, _ := json.Marshal(content)
	return fmt.Sprintf(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":%s},"finish_reason":%s}]}`, c, fr)
}

func TestStatusMapping(t *testing.T) {
	for _, tc := range wiretest.StatusCases {
		t.Run(tc.Name, func(t *testing.T) {
			srv := wiretest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("x-request-id", "req-123")
				w.Header().Set("retry-after-ms", "1234")
				w.WriteHeader(tc.Status)
				_, _ = io.WriteString(w, wiretest.BodyFor(tc.OpenAI, `{"error":{"message":"it failed","type":"some_error","code":null}}`))
			})
			_, err := drain(context.Background(), newProvider(t, srv.URL, 5*time.Second))
			f := failureOf(t, err)
			assert.Equal(t, tc.Code, f.Code)
			assert.Equal(t, tc.Status, f.Status, "the status is kept")
			assert.Equal(t, "req-123", f.RequestID)
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
				w.WriteHeader(429)
				_, _ = io.WriteString(w, `{"error":{"message":"slow down","type":"rate_limit_exceeded"}}`)
			})
			_, err := drain(context.Background(), newProvider(t, srv.URL, 5*time.Second))
			f := failureOf(t, err)
			assert.Equal(t, harness.CodeRateLimit, f.Code)
			assert.Equal(t, tc.WantMs, f.ProviderRetryAfterMs)
		})
	}
}

func TestStreamsTextToolCallsAndFinish(t *testing.T) {
	var body map[string]any
	srv := wiretest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "Bearer test-key", r.Header.Get("Authorization"))
		assert.Equal(t, "/v1/chat/completions", r.URL.Path)
		assert.NoError(t, json.NewDecoder(r.Body).Decode(&body))
		send := wiretest.SSE(w)
		send(delta("Let me ", ""))
		send(delta("look.", ""))
		send(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"echo","arguments":""}}]},"finish_reason":null}]}`)
		send(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"echo","arguments":"{\"x\":"}}]},"finish_reason":null}]}`)
		send(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"y\":2}"}}]},"finish_reason":null}]}`)
		send(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"1}"}}]},"finish_reason":null}]}`)
		send(delta("", "tool_calls"))
		send(`data: [DONE]`)
	})
	chunks, err := drain(context.Background(), newProvider(t, srv.URL, 5*time.Second))
	require.NoError(t, err)
	assert.Equal(t, []harness.Chunk{
		{Kind: harness.ChunkText, Text: "Let me "},
		{Kind: harness.ChunkText, Text: "look."},
		{Kind: harness.ChunkToolCall, CallID: "call_a", Name: "echo", Arguments: `{"y":2}`},
		{Kind: harness.ChunkToolCall, CallID: "call_b", Name: "echo", Arguments: `{"x":1}`},
		{Kind: harness.ChunkFinish, Finish: harness.FinishToolCalls},
	}, chunks)
	assert.Equal(t, true, body["stream"])
	assert.Equal(t, "test-model", body["model"])
	tools, _ := body["tools"].([]any)
	require.Len(t, tools, 1)
}

func TestRequestCarriesTheConversation(t *testing.T) {
	var body struct {
		Messages []map[string]any `json:"messages"`
	}
	srv := wiretest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		assert.NoError(t, json.NewDecoder(r.Body).Decode(&body))
		send := wiretest.SSE(w)
		send(delta("ok", "stop"))
	})
	p := newProvider(t, srv.URL, 5*time.Second)
	req := harness.Request{Messages: []harness.Entry{
		{Role: harness.RoleUser, Text: "hi"},
		{Role: harness.RoleAssistant, Blocks: []harness.Block{{Type: harness.BlockText, Text: "calling"}, {Type: harness.BlockToolCall, CallID: "c1", Name: "echo", Arguments: `{}`}}},
		{Role: harness.RoleTool, CallID: "c1", Text: "echoed"},
	}}
	s, err := p.Stream(context.Background(), req)
	require.NoError(t, err)
	_, err = s.Next(context.Background())
	require.NoError(t, err)
	require.Len(t, body.Messages, 3)
	assert.Equal(t, "assistant", body.Messages[1]["role"])
	assert.Equal(t, "calling", body.Messages[1]["content"])
	assert.Len(t, body.Messages[1]["tool_calls"], 1)
	assert.Equal(t, "tool", body.Messages[2]["role"])
	assert.Equal(t, "c1", body.Messages[2]["tool_call_id"])
}

func TestFinishReasons(t *testing.T) {
	for reason, want := range map[string]harness.Finish{"stop": harness.FinishCompleted, "length": harness.FinishMaxTokens, "tool_calls": harness.FinishToolCalls} {
		t.Run(reason, func(t *testing.T) {
			srv := wiretest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
				send := wiretest.SSE(w)
				send(delta("some text", ""))
				send(delta("", reason))
				send("data: [DONE]")
			})
			chunks, err := drain(context.Background(), newProvider(t, srv.URL, 5*time.Second))
			require.NoError(t, err)
			require.NotEmpty(t, chunks)
			assert.Equal(t, harness.Chunk{Kind: harness.ChunkFinish, Finish: want}, chunks[len(chunks)-1])
		})
	}
}

func TestStreamFailures(t *testing.T) {
	cases := []struct {
		name    string
		handler http.HandlerFunc
		code    string
		chunks  int
	}{
		{"in-stream server error", func(w http.ResponseWriter, r *http.Request) {
			send := wiretest.SSE(w)
			send(delta("part 1 ", ""))
			send(`data: {"error":{"message":"The server had an error","type":"server_error"}}`)
		}, harness.CodeServer, 1},
		{"in-stream overloaded", func(w http.ResponseWriter, r *http.Request) {
			wiretest.SSE(w)(`data: {"error":{"message":"overloaded","type":"overloaded_error"}}`)
		}, harness.CodeServer, 0},
		{"cut before the finish", func(w http.ResponseWriter, r *http.Request) {
			send := wiretest.SSE(w)
			send(delta("part 1 ", ""))
			send(delta("part 2 ", ""))
		}, harness.CodeTransport, 2},
		{"connection reset mid-answer", func(w http.ResponseWriter, r *http.Request) {
			send := wiretest.SSE(w)
			send(delta("part 1 ", ""))
			wiretest.Reset(w)
		}, harness.CodeTransport, 1},
		{"malformed event", func(w http.ResponseWriter, r *http.Request) {
			send := wiretest.SSE(w)
			send(delta("part 1 ", ""))
			send(`data: {"choices":[{"delta":`)
		}, harness.CodeTransport, 1},
		{"finish with no content", func(w http.ResponseWriter, r *http.Request) {
			send := wiretest.SSE(w)
			send(delta("", "stop"))
			send("data: [DONE]")
		}, harness.CodeEmptyResponse, 0},
		{"nothing at all", func(w http.ResponseWriter, r *http.Request) {
			wiretest.SSE(w)("data: [DONE]")
		}, harness.CodeEmptyResponse, 0},
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
					wiretest.SSE(w)(delta("part 1 ", ""))
				}
				wiretest.Stall(r)
			})
			start := time.Now()
			_, err := drain(context.Background(), newProvider(t, srv.URL, 200*time.Millisecond))
			assert.Equal(t, harness.CodeTimeout, failureOf(t, err).Code)
			assert.Less(t, time.Since(start), wiretest.MaxStall, "the timeout, not the server, ended it")
		})
	}
}

func TestCancelInterruptsAStalledStream(t *testing.T) {
	srv := wiretest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		wiretest.SSE(w)(delta("part 1 ", ""))
		wiretest.Stall(r)
	})
	p := newProvider(t, srv.URL, 0)
	s, err := p.Stream(context.Background(), oneUser)
	require.NoError(t, err)
	_, err = s.Next(context.Background())
	require.NoError(t, err)
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("user pressed stop")
	time.AfterFunc(50*time.Millisecond, func() { cancel(cause) })
	start := time.Now()
	_, err = s.Next(ctx)
	assert.ErrorIs(t, err, cause, "a cancel is no provider failure: the cause comes back")
	var llm *harness.LlmError
	assert.False(t, errors.As(err, &llm))
	assert.Less(t, time.Since(start), wiretest.MaxStall)
}

func TestConfigIsChecked(t *testing.T) {
	for name, cfg := range map[string]openai.Config{
		"no base url": {Model: "m", Clock: wiretest.FixedClock{}},
		"no model":    {BaseURL: "http://127.0.0.1:1", Clock: wiretest.FixedClock{}},
		"no clock":    {BaseURL: "http://127.0.0.1:1", Model: "m"},
		"negative":    {BaseURL: "http://127.0.0.1:1", Model: "m", Clock: wiretest.FixedClock{}, Timeout: -1},
	} {
		_, err := openai.New(cfg)
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
