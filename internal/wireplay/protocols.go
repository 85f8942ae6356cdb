package wireplay

import (
	"encoding/json"
	"strconv"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
)

// protocol writes one API's bytes: its error body, and the events of its stream. Each event
// method appends whole SSE events (each ending in a blank line) to b.
type protocol interface {
	// errorBody is the JSON body of an error response: the error object with type errType (code
	// alone when byCode) and message.
	errorBody(b []byte, errType string, byCode bool, message string) []byte
	start(b []byte) []byte
	// text is the n-th text delta of the answer (from 0).
	text(b []byte, n int, s string) []byte
	// toolCall is a whole tool call, block i of the answer, in the fragments the API streams.
	toolCall(b []byte, i int, id, name, arguments string) []byte
	// finish ends the answer with the API's finish reason, after blocks content blocks.
	finish(b []byte, reason string, blocks int) []byte
	streamError(b []byte, errType string, byCode bool, message string) []byte
	malformed(b []byte) []byte
	// errType names a failure code in the API's error vocabulary; reason a finish.
	errType(code string) string
	reason(f harness.Finish) string
}

// protocolOf is the protocol of a wire form's name.
func protocolOf(name string) protocol {
	if name == faults.ProtocolAnthropic {
		return anthropic{}
	}
	return openAI{}
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	q, err := json.Marshal(s)
	if err != nil {
		panic("wireplay: invariant: a string encodes: " + err.Error())
	}
	return append(b, q...)
}

// event appends one SSE event: its type line (none when kind is empty) and its data line.
func event(b []byte, kind string, data ...string) []byte {
	if kind != "" {
		b = append(append(append(b, "event: "...), kind...), '\n')
	}
	b = append(b, "data: "...)
	for _, d := range data {
		b = append(b, d...)
	}
	return append(b, "\n\n"...)
}

// openAI speaks Chat Completions streaming.
type openAI struct{}

// errorObject appends OpenAI's error object: the type and its code, or the code alone.
func (openAI) errorObject(b []byte, errType string, byCode bool, message string) []byte {
	code := "null"
	switch {
	case byCode:
		code, errType = string(appendJSONString(nil, errType)), ""
	case errType == "context_length_exceeded":
		code, errType = `"context_length_exceeded"`, "invalid_request_error"
	case errType == "insufficient_quota":
		code = `"insufficient_quota"`
	}
	b = append(b, `{"message":`...)
	b = appendJSONString(b, message)
	b = append(b, `,"type":`...)
	if errType == "" {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, errType)
	}
	return append(append(append(b, `,"param":null,"code":`...), code...), '}')
}

func (o openAI) errorBody(b []byte, errType string, byCode bool, message string) []byte {
	return append(o.errorObject(append(b, `{"error":`...), errType, byCode, message), '}')
}

func (openAI) chunk(b []byte, delta, finish string) []byte {
	f := "null"
	if finish != "" {
		f = string(appendJSONString(nil, finish))
	}
	return event(b, "", `{"id":"chatcmpl-wire","object":"chat.completion.chunk","created":0,"model":"turnsim","choices":[{"index":0,"delta":`, delta, `,"finish_reason":`, f, `}]}`)
}

func (o openAI) start(b []byte) []byte { return o.chunk(b, `{"role":"assistant"}`, "") }

func (o openAI) text(b []byte, _ int, s string) []byte {
	return o.chunk(b, `{"content":`+string(appendJSONString(nil, s))+`}`, "")
}

// toolCall sends a call in two fragments, as real endpoints do: the id and name, then the
// arguments (none at all for empty arguments).
func (o openAI) toolCall(b []byte, i int, id, name, arguments string) []byte {
	index := strconv.Itoa(i)
	b = o.chunk(b, `{"tool_calls":[{"index":`+index+`,"id":`+string(appendJSONString(nil, id))+`,"type":"function","function":{"name":`+string(appendJSONString(nil, name))+`,"arguments":""}}]}`, "")
	if arguments == "" {
		return b
	}
	return o.chunk(b, `{"tool_calls":[{"index":`+index+`,"function":{"arguments":`+string(appendJSONString(nil, arguments))+`}}]}`, "")
}

func (o openAI) finish(b []byte, reason string, _ int) []byte {
	return event(o.chunk(b, `{}`, reason), "", "[DONE]")
}

func (o openAI) streamError(b []byte, errType string, byCode bool, message string) []byte {
	return event(b, "", string(o.errorObject([]byte(`{"error":`), errType, byCode, message)), "}")
}

func (openAI) malformed(b []byte) []byte { return event(b, "", `{"choices":[{"delta":`) }

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

func (openAI) reason(f harness.Finish) string {
	switch f {
	case harness.FinishMaxTokens:
		return "length"
	case harness.FinishToolCalls:
		return "tool_calls"
	}
	return "stop"
}

// anthropic speaks the Messages streaming API.
type anthropic struct{}

func (anthropic) errorBody(b []byte, errType string, _ bool, message string) []byte {
	b = append(b, `{"type":"error","error":{"type":`...)
	b = appendJSONString(b, errType)
	b = append(b, `,"message":`...)
	return append(appendJSONString(b, message), "}}"...)
}

func (anthropic) start(b []byte) []byte {
	return event(b, "message_start", `{"type":"message_start","message":{"id":"msg_wire","type":"message","role":"assistant","content":[],"model":"turnsim","stop_reason":null,"usage":{"input_tokens":1,"output_tokens":0}}}`)
}

// text sends the n-th text delta; the answer has at most one text block (index 0), before any
// tool call, opened with its first delta.
func (anthropic) text(b []byte, n int, s string) []byte {
	if n == 0 {
		b = event(b, "content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	}
	return event(b, "content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`, string(appendJSONString(nil, s)), `}}`)
}

// toolCall opens a tool_use block, streams its input in two halves (none for empty arguments)
// and stops it.
func (anthropic) toolCall(b []byte, i int, id, name, arguments string) []byte {
	index := strconv.Itoa(i)
	b = event(b, "content_block_start", `{"type":"content_block_start","index":`+index+`,"content_block":{"type":"tool_use","id":`, string(appendJSONString(nil, id)), `,"name":`, string(appendJSONString(nil, name)), `,"input":{}}}`)
	if arguments != "" {
		half := len(arguments) / 2
		for _, part := range []string{arguments[:half], arguments[half:]} {
			b = event(b, "content_block_delta", `{"type":"content_block_delta","index":`+index+`,"delta":{"type":"input_json_delta","partial_json":`, string(appendJSONString(nil, part)), `}}`)
		}
	}
	return event(b, "content_block_stop", `{"type":"content_block_stop","index":`+index+`}`)
}

func (anthropic) finish(b []byte, reason string, _ int) []byte {
	b = event(b, "message_delta", `{"type":"message_delta","delta":{"stop_reason":`, string(appendJSONString(nil, reason)), `,"stop_sequence":null},"usage":{"output_tokens":1}}`)
	return event(b, "message_stop", `{"type":"message_stop"}`)
}

func (a anthropic) streamError(b []byte, errType string, _ bool, message string) []byte {
	return event(b, "error", string(a.errorBody(nil, errType, false, message)))
}

func (anthropic) malformed(b []byte) []byte {
	return event(b, "content_block_delta", `{"type":"content_block_delta","index":`)
}

func (anthropic) errType(code string) string {
	switch code {
	case harness.CodeRateLimit:
		return "rate_limit_error"
	case harness.CodeServer:
		return "overloaded_error"
	case harness.CodeTimeout:
		return "timeout_error"
	}
	return "invalid_request_error" // a context overflow too: the message says which
}

func (anthropic) reason(f harness.Finish) string {
	switch f {
	case harness.FinishMaxTokens:
		return "max_tokens"
	case harness.FinishToolCalls:
		return "tool_use"
	}
	return "end_turn"
}
