package openai_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/provider/internal/wiretest"
	"github.com/turnsim/turnsim/harness/provider/openai"
)

// A finish reason the harness has no outcome for ends the answer with an error that carries it:
// the chunks streamed before it stay streamed, the answer is no completed step.
func TestUnknownFinishReasonIsAnError(t *testing.T) {
	for _, reason := range []string{"content_filter", "something_new"} {
		t.Run(reason, func(t *testing.T) {
			srv := wiretest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
				send := wiretest.SSE(w)
				send(delta("some text", ""))
				send(delta("", reason))
				send("data: [DONE]")
			})
			chunks, err := drain(context.Background(), newProvider(t, srv.URL, 5*time.Second))
			f := failureOf(t, err)
			assert.Equal(t, harness.CodeUnknown, f.Code)
			assert.Contains(t, f.Message, reason)
			assert.Len(t, chunks, 1, "the text before it was streamed")
		})
	}
}

// A streamed call with no argument fragments takes an empty object, as Anthropic's adapter gives
// a tool_use block with no input.
func TestToolCallWithoutArgumentsTakesAnEmptyObject(t *testing.T) {
	srv := wiretest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		send := wiretest.SSE(w)
		send(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"echo","arguments":""}}]},"finish_reason":null}]}`)
		send(delta("", "tool_calls"))
	})
	chunks, err := drain(context.Background(), newProvider(t, srv.URL, 5*time.Second))
	require.NoError(t, err)
	assert.Equal(t, harness.Chunk{Kind: harness.ChunkToolCall, CallID: "call_a", Name: "echo", Arguments: "{}"}, chunks[0])
}

// A conversation's tool call with empty arguments (from a log written elsewhere) is sent as {}:
// the API wants a JSON object.
func TestEmptyArgumentsAreSentAsAnObject(t *testing.T) {
	var body struct {
		Messages []struct {
			ToolCalls []struct {
				Function struct {
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	srv := wiretest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		assert.NoError(t, json.NewDecoder(r.Body).Decode(&body))
		wiretest.SSE(w)(delta("ok", "stop"))
	})
	req := harness.Request{Messages: []harness.Entry{
		{Role: harness.RoleUser, Text: "hi"},
		{Role: harness.RoleAssistant, Blocks: []harness.Block{{Type: harness.BlockToolCall, CallID: "c1", Name: "echo", Arguments: ""}}},
		{Role: harness.RoleTool, CallID: "c1", Text: "echoed"},
	}}
	s, err := newProvider(t, srv.URL, 5*time.Second).Stream(context.Background(), req)
	require.NoError(t, err)
	_, err = s.Next(context.Background())
	require.NoError(t, err)
	require.Len(t, body.Messages, 3)
	require.Len(t, body.Messages[1].ToolCalls, 1)
	assert.Equal(t, "{}", body.Messages[1].ToolCalls[0].Function.Arguments)
}

// A transport failure's message names where the request went and reads the chain: the session
// log says which endpoint refused.
func TestTransportFailureNamesTheEndpoint(t *testing.T) {
	url := wiretest.RefusedURL(t)
	_, err := drain(context.Background(), newProvider(t, url, 5*time.Second))
	f := failureOf(t, err)
	assert.Equal(t, harness.CodeTransport, f.Code)
	assert.Contains(t, f.Message, "POST "+url+"/v1/chat/completions")
	assert.Contains(t, f.Message, "refused")
}

// An error event named by its code alone (compatible servers send no type) is mapped by it.
func TestInStreamErrorByCodeAlone(t *testing.T) {
	for code, want := range map[string]string{"rate_limit_exceeded": harness.CodeRateLimit, "server_error": harness.CodeServer, "context_length_exceeded": harness.CodeContextWindowExceeded, "insufficient_quota": harness.CodeUnknown} {
		t.Run(code, func(t *testing.T) {
			srv := wiretest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
				wiretest.SSE(w)(`data: {"error":{"message":"it failed","type":null,"code":"` + code + `"}}`)
			})
			_, err := drain(context.Background(), newProvider(t, srv.URL, 5*time.Second))
			f := failureOf(t, err)
			assert.Equal(t, want, f.Code)
			assert.Zero(t, f.Status)
		})
	}
}

// Given the harness's runtime, the request timeout is the runtime's timer: a stalled response
// ends TIMEOUT exactly when it runs out (in a synctest bubble, whose clock the runtime reads).
func TestRuntimeTimesTheRequestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, err := openai.New(openai.Config{
			BaseURL: "http://provider.test/v1", Model: "m", Clock: wiretest.FixedClock{}, Timeout: 30 * time.Second,
			Runtime: harness.NewProductionRuntime(nil),
			Options: []option.RequestOption{option.WithHTTPClient(&http.Client{Transport: wiretest.InMemory{Status: 200, Stall: true}})},
		})
		require.NoError(t, err)
		begin := time.Now()
		_, err = drain(context.Background(), p)
		f := failureOf(t, err)
		assert.Equal(t, harness.CodeTimeout, f.Code)
		assert.Equal(t, 30*time.Second, time.Since(begin))
		assert.Contains(t, f.Message, "POST http://provider.test/v1/chat/completions timed out")
	})
}
