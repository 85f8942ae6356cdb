package faultserver

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/turnsim/turnsim/harness"
)

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// openAI speaks Chat Completions streaming.
type openAI struct{}

func (openAI) errorResponse(w http.ResponseWriter, status int, message, errType string) {
	code := "null"
	if errType == "context_length_exceeded" {
		code = quote(errType)
		errType = "invalid_request_error"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"message":%s,"type":%s,"param":null,"code":%s}}`, quote(message), quote(errType), code)
}

func (openAI) chunk(delta, finish string) string {
	if finish == "" {
		finish = "null"
	} else {
		finish = quote(finish)
	}
	return fmt.Sprintf(`data: {"id":"chatcmpl-fault","object":"chat.completion.chunk","created":0,"model":"faultserver","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`, delta, finish)
}

func (o openAI) start(send func(string)) { send(o.chunk(`{"role":"assistant"}`, "")) }

func (o openAI) text(send func(string), _ int, s string) {
	send(o.chunk(`{"content":`+quote(s)+`}`, ""))
}

func (o openAI) toolCall(send func(string), i int, id, name, args string) {
	// Sent in two fragments, as real endpoints do: the id and name, then the arguments.
	send(o.chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":%s,"type":"function","function":{"name":%s,"arguments":""}}]}`, i, quote(id), quote(name)), ""))
	send(o.chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}`, i, quote(args)), ""))
}

func (o openAI) finish(send func(string), f harness.Finish, _ int) {
	reason := map[harness.Finish]string{harness.FinishCompleted: "stop", harness.FinishMaxTokens: "length", harness.FinishToolCalls: "tool_calls"}[f]
	send(o.chunk(`{}`, reason))
	send("data: [DONE]")
}

func (openAI) inStreamError(send func(string), errType, message string) {
	code := "null"
	if errType == "context_length_exceeded" {
		code = quote(errType)
	}
	send(fmt.Sprintf(`data: {"error":{"message":%s,"type":%s,"code":%s}}`, quote(message), quote(errType), code))
}

func (openAI) malformed(send func(string)) { send(`data: {"choices":[{"delta":`) }

func (openAI) errType(code string) string {
	switch code {
	case harness.CodeRateLimit:
		return "rate_limit_exceeded"
	case harness.CodeServer:
		return "server_error"
	case harness.CodeTimeout:
		return "timeout"
	case harness.CodeContextWindowExceeded:
		return "context_length_exceeded"
	}
	return "invalid_request_error"
}

// anthropic speaks the Messages streaming API.
type anthropic struct{}

func event(kind, data string) string { return "event: " + kind + "\ndata: " + data }

func (anthropic) errorResponse(w http.ResponseWriter, status int, message, errType string) {
	if errType == "context_length_exceeded" {
		errType, message = "invalid_request_error", "prompt is too long: "+message
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"type":"error","error":{"type":%s,"message":%s}}`, quote(errType), quote(message))
}

func (anthropic) start(send func(string)) {
	send(event("message_start", `{"type":"message_start","message":{"id":"msg_fault","type":"message","role":"assistant","content":[],"model":"faultserver","stop_reason":null,"usage":{"input_tokens":1,"output_tokens":0}}}`))
}

// text sends the n-th text delta; the server sends at most one text block (index 0), before any
// tool call, and opens it with the first delta.
func (anthropic) text(send func(string), n int, s string) {
	if n == 0 {
		send(event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`))
	}
	send(event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%s}}`, quote(s))))
}

func (anthropic) toolCall(send func(string), i int, id, name, args string) {
	send(event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%s,"name":%s,"input":{}}}`, i, quote(id), quote(name))))
	half := len(args) / 2
	for _, part := range []string{args[:half], args[half:]} {
		send(event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, i, quote(part))))
	}
	send(event("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i)))
}

func (anthropic) finish(send func(string), f harness.Finish, _ int) {
	reason := map[harness.Finish]string{harness.FinishCompleted: "end_turn", harness.FinishMaxTokens: "max_tokens", harness.FinishToolCalls: "tool_use"}[f]
	send(event("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%s,"stop_sequence":null},"usage":{"output_tokens":1}}`, quote(reason))))
	send(event("message_stop", `{"type":"message_stop"}`))
}

func (anthropic) inStreamError(send func(string), errType, message string) {
	if errType == "context_length_exceeded" {
		errType, message = "invalid_request_error", "prompt is too long: "+message
	}
	send(event("error", fmt.Sprintf(`{"type":"error","error":{"type":%s,"message":%s}}`, quote(errType), quote(message))))
}

func (anthropic) malformed(send func(string)) {
	send(event("content_block_delta", `{"type":"content_block_delta","index":`))
}

func (anthropic) errType(code string) string {
	switch code {
	case harness.CodeRateLimit:
		return "rate_limit_error"
	case harness.CodeServer:
		return "overloaded_error"
	case harness.CodeTimeout:
		return "timeout_error"
	case harness.CodeContextWindowExceeded:
		return "context_length_exceeded"
	}
	return "invalid_request_error"
}
