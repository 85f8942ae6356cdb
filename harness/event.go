package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Event types of the session log. The strings are contracts: they appear in every log line.
const (
	TypeUserMessage      = "user/message"
	TypeInboxPush        = "inbox/push"
	TypeInboxClaim       = "inbox/claim"
	TypeInboxClear       = "inbox/clear"
	TypeTurnStart        = "turn/start"
	TypeTurnEnd          = "turn/end"
	TypeStepStart        = "step/start"
	TypeStepEnd          = "step/end"
	TypeAssistantChunk   = "assistant/chunk"
	TypeAssistantMessage = "assistant/message"
	TypeToolCall         = "tool/call"
	TypeToolResult       = "tool/result"
	TypeLlmRetry         = "llm/retry"
	TypeLlmRetryStarted  = "llm/retry-started"
)

// Event is one line of the session log: {seq, type, time, data}. Field order is fixed by the
// struct, so the same run gives the same bytes.
type Event struct {
	Seq  int64     `json:"seq"`
	Type string    `json:"type"`
	Time int64     `json:"time"` // Unix milliseconds on the injected clock at append
	Data EventData `json:"data"`
}

// EventData is the typed payload of an event; each event type has exactly one data type.
type EventData interface {
	// EventType is the type string this payload belongs to.
	EventType() string
}

// Message is a user message as sent to the agent.
type Message struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// UserMessage records what the user said, when it was said (before it reaches any lane).
type UserMessage struct {
	Message Message `json:"message"`
}

// InboxPush records a message entering a lane; Kind says how it was sent (followup, steer, inject).
type InboxPush struct {
	Lane      Lane        `json:"lane"`
	Kind      MessageKind `json:"kind"`
	MessageID string      `json:"messageId"`
}

// InboxClaim records a step taking a message out of its lane into the conversation.
type InboxClaim struct {
	Turn      int    `json:"turn"`
	Step      int    `json:"step"`
	Lane      Lane   `json:"lane"`
	MessageID string `json:"messageId"`
}

// InboxClear records a message dropped from its lane by a Cancel without keepInbox.
type InboxClear struct {
	Lane      Lane   `json:"lane"`
	MessageID string `json:"messageId"`
}

// TurnStart opens turn Turn.
type TurnStart struct {
	Turn int `json:"turn"`
}

// TurnEnd settles turn Turn; written on every way out of a turn.
type TurnEnd struct {
	Turn   int           `json:"turn"`
	Reason TurnEndReason `json:"reason"`
}

// StepStart opens step Step of turn Turn.
type StepStart struct {
	Turn int `json:"turn"`
	Step int `json:"step"`
}

// StepEnd closes step Step of turn Turn.
type StepEnd struct {
	Turn int `json:"turn"`
	Step int `json:"step"`
}

// AssistantChunk is one streamed chunk, logged as it arrives. Chunks of a failed attempt stay in
// the log but never become part of a message.
type AssistantChunk struct {
	Turn  int   `json:"turn"`
	Step  int   `json:"step"`
	Chunk Chunk `json:"chunk"`
}

// AssistantMessage is the assembled answer of a step's successful attempt.
type AssistantMessage struct {
	Turn    int              `json:"turn"`
	Step    int              `json:"step"`
	Message AssembledMessage `json:"message"`
	Finish  Finish           `json:"finish"`
}

// ToolCall is written when a call is dispatched (or, for a call never started, just before its
// synthetic result).
type ToolCall struct {
	Turn      int    `json:"turn"`
	Step      int    `json:"step"`
	CallID    string `json:"callId"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ToolResult is the one result of a call.
type ToolResult struct {
	Turn    int        `json:"turn"`
	Step    int        `json:"step"`
	CallID  string     `json:"callId"`
	IsError bool       `json:"isError"`
	Content string     `json:"content"`
	Error   *ToolError `json:"error,omitempty"`
}

// ToolError describes an error result: Name is the error's kind (ToolError, AbortError, …),
// Code one of the tool codes.
type ToolError struct {
	Name    string `json:"name"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// LlmRetry is written before the backoff wait begins (durable before wait).
type LlmRetry struct {
	RetryID   string `json:"retryId"`
	Turn      int    `json:"turn"`
	Step      int    `json:"step"`
	Provider  string `json:"provider"`
	Mode      Mode   `json:"mode"`
	PolicyKey string `json:"policyKey"`
	Retry     int    `json:"retry"`
	// MaxRetries is present in normal mode only.
	MaxRetries *int    `json:"maxRetries,omitempty"`
	DelayMs    float64 `json:"delayMs"`
	Failure    Failure `json:"failure"`
}

// LlmRetryStarted is written when the wait has elapsed and the request is about to be re-sent.
type LlmRetryStarted struct {
	RetryID string `json:"retryId"`
	Turn    int    `json:"turn"`
	Step    int    `json:"step"`
	Retry   int    `json:"retry"`
}

// EventType implementations: one data type per event type.
func (UserMessage) EventType() string      { return TypeUserMessage }
func (InboxPush) EventType() string        { return TypeInboxPush }
func (InboxClaim) EventType() string       { return TypeInboxClaim }
func (InboxClear) EventType() string       { return TypeInboxClear }
func (TurnStart) EventType() string        { return TypeTurnStart }
func (TurnEnd) EventType() string          { return TypeTurnEnd }
func (StepStart) EventType() string        { return TypeStepStart }
func (StepEnd) EventType() string          { return TypeStepEnd }
func (AssistantChunk) EventType() string   { return TypeAssistantChunk }
func (AssistantMessage) EventType() string { return TypeAssistantMessage }
func (ToolCall) EventType() string         { return TypeToolCall }
func (ToolResult) EventType() string       { return TypeToolResult }
func (LlmRetry) EventType() string         { return TypeLlmRetry }
func (LlmRetryStarted) EventType() string  { return TypeLlmRetryStarted }

// newEventData returns a pointer to an empty payload of the given type, for decoding.
func newEventData(eventType string) (EventData, error) {
	switch eventType {
	case TypeUserMessage:
		return &UserMessage{}, nil
	case TypeInboxPush:
		return &InboxPush{}, nil
	case TypeInboxClaim:
		return &InboxClaim{}, nil
	case TypeInboxClear:
		return &InboxClear{}, nil
	case TypeTurnStart:
		return &TurnStart{}, nil
	case TypeTurnEnd:
		return &TurnEnd{}, nil
	case TypeStepStart:
		return &StepStart{}, nil
	case TypeStepEnd:
		return &StepEnd{}, nil
	case TypeAssistantChunk:
		return &AssistantChunk{}, nil
	case TypeAssistantMessage:
		return &AssistantMessage{}, nil
	case TypeToolCall:
		return &ToolCall{}, nil
	case TypeToolResult:
		return &ToolResult{}, nil
	case TypeLlmRetry:
		return &LlmRetry{}, nil
	case TypeLlmRetryStarted:
		return &LlmRetryStarted{}, nil
	}
	return nil, fmt.Errorf("harness: unknown event type %q", eventType)
}

// UnmarshalJSON decodes an event line with encoding/json, choosing the payload type from "type"
// and refusing a payload field the type does not have. Payloads are stored as values (not
// pointers), the same as the harness appends them. It makes an Event an ordinary encoding/json
// value; package eventjson reads whole logs faster, with the same answers.
func (e *Event) UnmarshalJSON(b []byte) error {
	var raw struct {
		Seq  *int64          `json:"seq"`
		Type string          `json:"type"`
		Time *int64          `json:"time"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("harness: event: %w", err)
	}
	switch {
	case raw.Seq == nil:
		return fmt.Errorf("harness: event: missing seq")
	case raw.Type == "":
		return fmt.Errorf("harness: event: missing type")
	case raw.Time == nil:
		return fmt.Errorf("harness: event: missing time")
	case len(raw.Data) == 0 || string(raw.Data) == "null":
		return fmt.Errorf("harness: event %s: missing data", raw.Type)
	}
	data, err := newEventData(raw.Type)
	if err != nil {
		return err
	}
	decoder := json.NewDecoder(bytes.NewReader(raw.Data))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(data); err != nil {
		return fmt.Errorf("harness: event %s: data: %w", raw.Type, err)
	}
	e.Seq, e.Type, e.Time, e.Data = *raw.Seq, raw.Type, *raw.Time, derefData(data)
	return nil
}

// derefData turns the decoding pointer back into the value form the harness appends.
func derefData(d EventData) EventData {
	switch v := d.(type) {
	case *UserMessage:
		return *v
	case *InboxPush:
		return *v
	case *InboxClaim:
		return *v
	case *InboxClear:
		return *v
	case *TurnStart:
		return *v
	case *TurnEnd:
		return *v
	case *StepStart:
		return *v
	case *StepEnd:
		return *v
	case *AssistantChunk:
		return *v
	case *AssistantMessage:
		return *v
	case *ToolCall:
		return *v
	case *ToolResult:
		return *v
	case *LlmRetry:
		return *v
	case *LlmRetryStarted:
		return *v
	}
	panic(fmt.Sprintf("harness: invariant: no value form for %T", d))
}

// EventScope returns the turn and step an event names: (turn, 0) for turn/start and turn/end,
// (0, 0) for events outside turns (user/message and the inbox's push and clear).
func EventScope(e Event) (turn, step int) {
	switch d := e.Data.(type) {
	case TurnStart:
		return d.Turn, 0
	case TurnEnd:
		return d.Turn, 0
	case StepStart:
		return d.Turn, d.Step
	case StepEnd:
		return d.Turn, d.Step
	case InboxClaim:
		return d.Turn, d.Step
	case AssistantChunk:
		return d.Turn, d.Step
	case AssistantMessage:
		return d.Turn, d.Step
	case ToolCall:
		return d.Turn, d.Step
	case ToolResult:
		return d.Turn, d.Step
	case LlmRetry:
		return d.Turn, d.Step
	case LlmRetryStarted:
		return d.Turn, d.Step
	}
	return 0, 0
}
