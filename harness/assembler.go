package harness

import (
	"fmt"
)

// BlockAssembler turns a stream of chunks into one assistant message. Consecutive text chunks
// join into one text block; each tool-call chunk is one block; the finish chunk ends the stream.
// It refuses what a well-behaved provider never sends, so a broken stream fails its attempt
// (and may be retried) instead of producing a half-formed message.
type BlockAssembler struct {
	blocks   []Block
	finish   Finish
	finished bool
	callIDs  map[string]bool
}

// Add takes the next chunk.
func (a *BlockAssembler) Add(c Chunk) error {
	if a.finished {
		return fmt.Errorf("harness: stream: %s chunk after the finish", c.Kind)
	}
	switch c.Kind {
	case ChunkText:
		if n := len(a.blocks); n > 0 && a.blocks[n-1].Type == BlockText {
			a.blocks[n-1].Text += c.Text
		} else {
			a.blocks = append(a.blocks, Block{Type: BlockText, Text: c.Text})
		}
	case ChunkToolCall:
		if c.CallID == "" || c.Name == "" {
			return fmt.Errorf("harness: stream: tool-call chunk without a callId or name")
		}
		if a.callIDs == nil {
			a.callIDs = map[string]bool{}
		}
		if a.callIDs[c.CallID] {
			return fmt.Errorf("harness: stream: callId %q appears twice", c.CallID)
		}
		a.callIDs[c.CallID] = true
		a.blocks = append(a.blocks, Block{Type: BlockToolCall, CallID: c.CallID, Name: c.Name, Arguments: c.Arguments})
	case ChunkFinish:
		switch c.Finish {
		case FinishCompleted, FinishMaxTokens, FinishToolCalls:
		default:
			return fmt.Errorf("harness: stream: unknown finish %q", string(c.Finish))
		}
		a.finish, a.finished = c.Finish, true
	default:
		return fmt.Errorf("harness: stream: unknown chunk kind %q", c.Kind)
	}
	return nil
}

// Finish returns the assembled message and how the step ends. max-tokens wins over tool calls
// (a truncated call is never executed); otherwise any tool call makes it tool-calls. A stream
// that ended without a finish is a TRANSPORT failure; one with no blocks is EMPTY_RESPONSE.
func (a *BlockAssembler) Finish() (AssembledMessage, Finish, error) {
	if !a.finished {
		return AssembledMessage{}, "", &LlmError{Failure: Failure{Code: CodeTransport, Message: "stream ended before its finish"}}
	}
	if len(a.blocks) == 0 {
		return AssembledMessage{}, "", &LlmError{Failure: Failure{Code: CodeEmptyResponse, Message: "the answer has no content"}}
	}
	msg := AssembledMessage{Blocks: a.blocks}
	switch {
	case a.finish == FinishMaxTokens:
		return msg, FinishMaxTokens, nil
	case len(a.callIDs) > 0:
		return msg, FinishToolCalls, nil
	}
	return msg, FinishCompleted, nil
}
