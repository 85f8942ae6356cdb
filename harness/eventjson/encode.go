package eventjson

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/turnsim/turnsim/harness"
)

// Append appends events to dst as JSON Lines, each line followed by its newline, and returns the
// extended buffer: for a caller that keeps the bytes (a store's line, a digest). The fields are
// in struct order, so equal events give equal bytes.
func Append(dst []byte, events []harness.Event) ([]byte, error) {
	for _, e := range events {
		var err error
		if dst, err = appendLine(dst, e); err != nil {
			return dst, err
		}
		dst = append(dst, '\n')
	}
	return dst, nil
}

// lineBytes is what a typical line takes, to size a buffer for a whole log.
const lineBytes = 256

// Write writes events to w as JSON Lines, in one write.
func Write(w io.Writer, events []harness.Event) error {
	b, err := Append(make([]byte, 0, len(events)*lineBytes), events)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// appendLine appends e's line without its newline: written here for the harness's own payload
// types, by json.Marshal for anything else (another EventData, a NaN delay), so that the bytes
// and the errors are always Marshal's.
func appendLine(dst []byte, e harness.Event) ([]byte, error) {
	if out, ok := appendEvent(dst, e); ok {
		return out, nil
	}
	b, err := json.Marshal(e)
	if err != nil {
		return dst, fmt.Errorf("eventjson: encode event %d (%s): %w", e.Seq, e.Type, err)
	}
	return append(dst, b...), nil
}

// appendEvent appends e's line; ok is false when e needs json.Marshal (what it appended is then
// to be dropped).
func appendEvent(dst []byte, e harness.Event) (out []byte, ok bool) {
	dst = append(dst, `{"seq":`...)
	dst = strconv.AppendInt(dst, e.Seq, 10)
	dst = append(dst, `,"type":`...)
	dst = appendString(dst, e.Type)
	dst = append(dst, `,"time":`...)
	dst = strconv.AppendInt(dst, e.Time, 10)
	dst = append(dst, `,"data":`...)
	if dst, ok = appendData(dst, e.Data); !ok {
		return dst, false
	}
	return append(dst, '}'), true
}

// appendData appends a payload of one of the harness's own types, its fields in struct order and
// the omitempty ones left out when empty, as Marshal does.
func appendData(b []byte, data harness.EventData) ([]byte, bool) {
	switch d := data.(type) {
	case harness.UserMessage:
		b = append(b, `{"message":{"id":`...)
		b = appendString(b, d.Message.ID)
		b = append(b, `,"text":`...)
		b = appendString(b, d.Message.Text)
		return append(b, "}}"...), true
	case harness.InboxPush:
		b = append(b, `{"lane":`...)
		b = appendString(b, string(d.Lane))
		b = append(b, `,"kind":`...)
		b = appendString(b, string(d.Kind))
		b = append(b, `,"messageId":`...)
		b = appendString(b, d.MessageID)
		return append(b, '}'), true
	case harness.InboxClaim:
		b = appendTurnStep(b, d.Turn, d.Step)
		b = append(b, `,"lane":`...)
		b = appendString(b, string(d.Lane))
		b = append(b, `,"messageId":`...)
		b = appendString(b, d.MessageID)
		return append(b, '}'), true
	case harness.InboxClear:
		b = append(b, `{"lane":`...)
		b = appendString(b, string(d.Lane))
		b = append(b, `,"messageId":`...)
		b = appendString(b, d.MessageID)
		return append(b, '}'), true
	case harness.TurnStart:
		b = append(b, `{"turn":`...)
		b = strconv.AppendInt(b, int64(d.Turn), 10)
		return append(b, '}'), true
	case harness.TurnEnd:
		b = append(b, `{"turn":`...)
		b = strconv.AppendInt(b, int64(d.Turn), 10)
		b = append(b, `,"reason":`...)
		b, ok := appendTurnEndReason(b, d.Reason)
		return append(b, '}'), ok
	case harness.StepStart:
		return append(appendTurnStep(b, d.Turn, d.Step), '}'), true
	case harness.StepEnd:
		return append(appendTurnStep(b, d.Turn, d.Step), '}'), true
	case harness.AssistantChunk:
		b = appendTurnStep(b, d.Turn, d.Step)
		b = append(b, `,"chunk":`...)
		b = appendChunk(b, d.Chunk)
		return append(b, '}'), true
	case harness.AssistantMessage:
		b = appendTurnStep(b, d.Turn, d.Step)
		b = append(b, `,"message":{"blocks":`...)
		b = appendBlocks(b, d.Message.Blocks)
		b = append(b, `},"finish":`...)
		b = appendString(b, string(d.Finish))
		return append(b, '}'), true
	case harness.ToolCall:
		b = appendTurnStep(b, d.Turn, d.Step)
		b = append(b, `,"callId":`...)
		b = appendString(b, d.CallID)
		b = append(b, `,"name":`...)
		b = appendString(b, d.Name)
		b = append(b, `,"arguments":`...)
		b = appendString(b, d.Arguments)
		return append(b, '}'), true
	case harness.ToolResult:
		return appendToolResult(b, d), true
	case harness.LlmRetry:
		return appendLlmRetry(b, d)
	case harness.LlmRetryStarted:
		b = append(b, `{"retryId":`...)
		b = appendString(b, d.RetryID)
		b = append(b, `,"turn":`...)
		b = strconv.AppendInt(b, int64(d.Turn), 10)
		b = append(b, `,"step":`...)
		b = strconv.AppendInt(b, int64(d.Step), 10)
		b = append(b, `,"retry":`...)
		b = strconv.AppendInt(b, int64(d.Retry), 10)
		return append(b, '}'), true
	}
	return b, false
}

// appendTurnStep opens an object with its turn and step fields.
func appendTurnStep(b []byte, turn, step int) []byte {
	b = append(b, `{"turn":`...)
	b = strconv.AppendInt(b, int64(turn), 10)
	b = append(b, `,"step":`...)
	return strconv.AppendInt(b, int64(step), 10)
}

func appendTurnEndReason(b []byte, r harness.TurnEndReason) ([]byte, bool) {
	b = append(b, `{"kind":`...)
	b = appendString(b, r.Kind)
	if r.Reason != nil {
		b = append(b, `,"reason":{"kind":`...)
		b = appendString(b, r.Reason.Kind)
		b = appendOptionalString(b, `,"reason":`, r.Reason.Reason)
		b = append(b, '}')
	}
	if r.Error != nil {
		b = append(b, `,"error":`...)
		var ok bool
		if b, ok = appendFailure(b, *r.Error); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

func appendChunk(b []byte, c harness.Chunk) []byte {
	b = append(b, `{"kind":`...)
	b = appendString(b, c.Kind)
	b = appendOptionalString(b, `,"text":`, c.Text)
	b = appendOptionalString(b, `,"callId":`, c.CallID)
	b = appendOptionalString(b, `,"name":`, c.Name)
	b = appendOptionalString(b, `,"arguments":`, c.Arguments)
	b = appendOptionalString(b, `,"finish":`, string(c.Finish))
	return append(b, '}')
}

// appendBlocks writes a nil slice as null and an empty one as [], as Marshal does.
func appendBlocks(b []byte, blocks []harness.Block) []byte {
	if blocks == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, block := range blocks {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":`...)
		b = appendString(b, block.Type)
		b = appendOptionalString(b, `,"text":`, block.Text)
		b = appendOptionalString(b, `,"callId":`, block.CallID)
		b = appendOptionalString(b, `,"name":`, block.Name)
		b = appendOptionalString(b, `,"arguments":`, block.Arguments)
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendToolResult(b []byte, r harness.ToolResult) []byte {
	b = appendTurnStep(b, r.Turn, r.Step)
	b = append(b, `,"callId":`...)
	b = appendString(b, r.CallID)
	b = append(b, `,"isError":`...)
	b = strconv.AppendBool(b, r.IsError)
	b = append(b, `,"content":`...)
	b = appendString(b, r.Content)
	if r.Error != nil {
		b = append(b, `,"error":{"name":`...)
		b = appendString(b, r.Error.Name)
		b = append(b, `,"code":`...)
		b = appendString(b, r.Error.Code)
		b = append(b, `,"message":`...)
		b = appendString(b, r.Error.Message)
		b = append(b, '}')
	}
	return append(b, '}')
}

func appendLlmRetry(b []byte, r harness.LlmRetry) ([]byte, bool) {
	b = append(b, `{"retryId":`...)
	b = appendString(b, r.RetryID)
	b = append(b, `,"turn":`...)
	b = strconv.AppendInt(b, int64(r.Turn), 10)
	b = append(b, `,"step":`...)
	b = strconv.AppendInt(b, int64(r.Step), 10)
	b = append(b, `,"provider":`...)
	b = appendString(b, r.Provider)
	b = append(b, `,"mode":`...)
	b = appendString(b, string(r.Mode))
	b = append(b, `,"policyKey":`...)
	b = appendString(b, r.PolicyKey)
	b = append(b, `,"retry":`...)
	b = strconv.AppendInt(b, int64(r.Retry), 10)
	if r.MaxRetries != nil {
		b = append(b, `,"maxRetries":`...)
		b = strconv.AppendInt(b, int64(*r.MaxRetries), 10)
	}
	b = append(b, `,"delayMs":`...)
	var ok bool
	if b, ok = appendFloat(b, r.DelayMs); !ok {
		return b, false
	}
	b = append(b, `,"failure":`...)
	if b, ok = appendFailure(b, r.Failure); !ok {
		return b, false
	}
	return append(b, '}'), true
}

func appendFailure(b []byte, f harness.Failure) ([]byte, bool) {
	b = append(b, `{"code":`...)
	b = appendString(b, f.Code)
	b = append(b, `,"message":`...)
	b = appendString(b, f.Message)
	if f.Status != 0 {
		b = append(b, `,"status":`...)
		b = strconv.AppendInt(b, int64(f.Status), 10)
	}
	if f.ProviderRetryAfterMs != 0 {
		b = append(b, `,"providerRetryAfterMs":`...)
		var ok bool
		if b, ok = appendFloat(b, f.ProviderRetryAfterMs); !ok {
			return b, false
		}
	}
	b = appendOptionalString(b, `,"requestId":`, f.RequestID)
	return append(b, '}'), true
}
