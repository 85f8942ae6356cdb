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
	// calls counts the tool-call blocks. A repeated callId is looked for among them by scanning
	// the blocks while they are few (an answer asks for a handful), and in callIDs, made once
	// they are more than callIDScanMax.
	calls   int
	callIDs map[string]bool
}

// callIDScanMax is the most tool calls an answer's repeated-callId check scans; past it the
// assembler keeps a set, so that a stream of many calls is not checked in quadratic time.
const callIDScanMax = 16

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
		if a.hasCall(c.CallID) {
			return fmt.Errorf("harness: stream: callId %q appears twice", c.CallID)
		}
		a.blocks = append(a.blocks, Block{Type: BlockToolCall, CallID: c.CallID, Name: c.Name, Arguments: c.Arguments})
		a.calls++
		switch {
		case a.callIDs != nil:
			a.callIDs[c.CallID] = true
		case a.calls > callIDScanMax:
			a.callIDs = make(map[string]bool, 2*a.calls)
			for _, b := range a.blocks {
				if b.Type == BlockToolCall {
					a.callIDs[b.CallID] = true
				}
			}
		}
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
	case a.calls > 0:
		return msg, FinishToolCalls, nil
	}
	return msg, FinishCompleted, nil
}

// hasCall reports whether a tool call with callID was added already.
func (a *BlockAssembler) hasCall(callID string) bool {
	if a.callIDs != nil {
		return a.callIDs[callID]
	}
	for _, b := range a.blocks {
		if b.Type == BlockToolCall && b.CallID == callID {
			return true
		}
	}
	return false
}
