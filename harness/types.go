package harness

import "fmt"

// Lane is one of the inbox's two lanes.
type Lane string

// The two lanes: next-turn work waits for the current turn to end; next-step work is claimed by
// the current turn's next step.
const (
	LaneNextTurn Lane = "next-turn"
	LaneNextStep Lane = "next-step"
)

// MessageKind says how a message was sent: followup (next turn, wakes), steer (next step,
// wakes) or inject (next step, does not wake).
type MessageKind string

// The three ways to send.
const (
	KindFollowup MessageKind = "followup"
	KindSteer    MessageKind = "steer"
	KindInject   MessageKind = "inject"
)

// lane is where a kind of message goes, and wakes whether it wakes an idle agent.
func (k MessageKind) lane() (lane Lane, wakes bool) {
	switch k {
	case KindFollowup:
		return LaneNextTurn, true
	case KindSteer:
		return LaneNextStep, true
	case KindInject:
		return LaneNextStep, false
	}
	panic(fmt.Sprintf("harness: invariant: unknown message kind %q", string(k)))
}

// Finish is how a step's answer ended.
type Finish string

// Step finishes. Only max-tokens is sticky across a turn's steps.
const (
	FinishCompleted Finish = "completed"
	FinishMaxTokens Finish = "max-tokens"
	FinishToolCalls Finish = "tool-calls"
)

// Turn end reason kinds.
const (
	EndCompleted   = "completed"
	EndMaxTokens   = "max-tokens"
	EndAborted     = "aborted"
	EndError       = "error"
	EndInterrupted = "interrupted"
)

// TurnEndReason is why a turn ended. Reason is set for aborted turns, Error for turns that
// ended in error.
type TurnEndReason struct {
	Kind   string       `json:"kind"`
	Reason *CancelCause `json:"reason,omitempty"`
	Error  *Failure     `json:"error,omitempty"`
}

// Cancel cause kinds.
const (
	CauseUser     = "user"
	CauseParent   = "parent"
	CauseHook     = "hook"
	CauseDisposed = "disposed"
)

// CancelCause is why a phase was cancelled. It is the error stored as the context's cause, so
// context.Cause of a cancelled step tells the turn what to record.
type CancelCause struct {
	Kind   string `json:"kind"`
	Reason string `json:"reason,omitempty"`
}

// Error makes a CancelCause usable as a context cause.
func (c CancelCause) Error() string {
	if c.Reason != "" {
		return "harness: cancelled (" + c.Kind + "): " + c.Reason
	}
	return "harness: cancelled (" + c.Kind + ")"
}

// validCauseKind reports whether kind is one of the four cancel causes.
func validCauseKind(kind string) bool {
	switch kind {
	case CauseUser, CauseParent, CauseHook, CauseDisposed:
		return true
	}
	return false
}

// Chunk kinds a provider streams.
const (
	ChunkText     = "text"
	ChunkToolCall = "tool-call"
	ChunkFinish   = "finish"
)

// Chunk is one piece of a streamed answer: some text, one complete tool call, or the finish.
type Chunk struct {
	Kind      string `json:"kind"`
	Text      string `json:"text,omitempty"`
	CallID    string `json:"callId,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	Finish    Finish `json:"finish,omitempty"`
}

// Block kinds of an assembled message.
const (
	BlockText     = "text"
	BlockToolCall = "tool-call"
)

// Block is one block of an assembled assistant message.
type Block struct {
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	CallID    string `json:"callId,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
}

// AssembledMessage is what the block assembler makes of a successful attempt's chunks.
type AssembledMessage struct {
	Blocks []Block `json:"blocks"`
}

// ToolCalls returns the tool-call blocks in model order.
func (m AssembledMessage) ToolCalls() []Block { return appendToolCalls(nil, m.Blocks) }

// appendToolCalls appends the tool-call blocks of blocks to calls, in model order: ToolCalls into
// a buffer the caller keeps (a step's calls, into the agent's stepCalls).
func appendToolCalls(calls, blocks []Block) []Block {
	for _, b := range blocks {
		if b.Type == BlockToolCall {
			calls = append(calls, b)
		}
	}
	return calls
}

// TextOnly returns the message with its text blocks only: what a step cut off at max-tokens
// commits. Its tool calls may be truncated ({"a":), are never run, and so must not reach the
// conversation either, where the next request would replay them as calls without a result.
func (m AssembledMessage) TextOnly() AssembledMessage {
	text := []Block{}
	for _, b := range m.Blocks {
		if b.Type == BlockText {
			text = append(text, b)
		}
	}
	return AssembledMessage{Blocks: text}
}
