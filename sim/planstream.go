package sim

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/internal/wireplay"
	"github.com/turnsim/turnsim/properties"
)

// The provider's wider world: streams that ignore cancellation, failures wrapped in other
// errors, and the record of what each request carried.

// produceIgnoringCancel streams an answer of the stream-ignores-cancel fault: every chunk, text,
// tool call or finish, takes ChunkDelayMs on a sleep no context can end, and then arrives,
// cancelled or not; so does the stream's end (io.EOF) after its finish, as a body still being
// read to its close does. The harness must stop at the cancellation itself, up to the answer's
// last read.
func (s *planStream) produceIgnoringCancel() (harness.Chunk, error) {
	a := s.answer
	i := s.next
	s.next++
	if i > a.Chunks+len(a.Calls)+1 {
		return harness.Chunk{}, io.EOF
	}
	if err := s.provider.runtime.Sleep(delayBefore(a, i)); err != nil { // no context: cancellation cannot end it
		return harness.Chunk{}, err
	}
	if i == a.Chunks+len(a.Calls)+1 {
		return harness.Chunk{}, io.EOF
	}
	if i == 0 {
		s.provider.tracer.strike(a.Fault) // its first chunk arrives: the stream is under way
	}
	switch {
	case i < a.Chunks:
		return harness.Chunk{Kind: harness.ChunkText, Text: chunkText(a, i)}, nil
	case i < a.Chunks+len(a.Calls):
		return s.toolCallChunk(i - a.Chunks), nil
	}
	return harness.Chunk{Kind: harness.ChunkFinish, Finish: a.Finish}, nil
}

// partTexts are the texts of an answer's first text chunks: a drawn answer has at most three,
// made once, so that a chunk does not build its string anew.
var partTexts = func() (texts [9]string) {
	for n := 1; n < len(texts); n++ {
		texts[n] = wireplay.PartText(n)
	}
	return texts
}()

// delayBefore is the wait before the i-th delivery of answer a (from 0): as delivered
// (Answer.DelaysMs), or ChunkDelayMs.
func delayBefore(a *faults.Answer, i int) time.Duration {
	if i < len(a.DelaysMs) {
		return ms(a.DelaysMs[i])
	}
	return ms(a.ChunkDelayMs)
}

// chunkText is the text of answer a's i-th text chunk (from 0): as a provider delivered it
// (Answer.Texts), or partText(i+1).
func chunkText(a *faults.Answer, i int) string {
	if i < len(a.Texts) {
		return a.Texts[i]
	}
	return partText(i + 1)
}

// partText is the text of an answer's n-th text chunk (from 1): "part n ".
func partText(n int) string {
	if n >= 1 && n < len(partTexts) {
		return partTexts[n]
	}
	return wireplay.PartText(n) // the wire's spelling, which is the model's
}

// requestMessages is what conversation-well-formed needs of a request's conversation: each
// entry's role, the tool calls an assistant entry asks for, the call a tool entry answers; and
// for cleared-never-sent, a user entry's text.
//
// A request's conversation is mostly the last one's and more (a retry's is the same): the
// record shares the last record's entries and array, and only the entries past it are new.
// Each record is cut to its own length and capacity, so no append to one writes into
// another's; records are only read. (Building every record whole copied each conversation
// once per request.)
func (p *planProvider) requestMessages(entries []harness.Entry) []properties.RequestMessage {
	if len(entries) == 0 {
		return []properties.RequestMessage{} // empty, not nil, as a record built whole was
	}
	out := p.messages
	if !sameMessages(out, entries) {
		out = nil
	}
	if len(out) == len(entries) {
		return out[:len(out):len(out)]
	}
	if need := len(entries); need > cap(out) {
		grown := make([]properties.RequestMessage, len(out), max(need, 2*cap(out), messagesBuffered))
		copy(grown, out)
		out = grown
	}
	// The new entries' CallIDs are cut from one array, counted first: not one growing slice each.
	fresh := entries[len(out):]
	calls := 0
	for _, e := range fresh {
		if e.Role == harness.RoleAssistant {
			for _, b := range e.Blocks {
				if b.Type == harness.BlockToolCall {
					calls++
				}
			}
		}
	}
	var callIDs []string
	if calls > 0 {
		callIDs = make([]string, 0, calls)
	}
	for _, e := range fresh {
		m := properties.RequestMessage{Role: e.Role}
		switch e.Role {
		case harness.RoleAssistant:
			from := len(callIDs)
			for _, b := range e.Blocks {
				if b.Type == harness.BlockToolCall {
					callIDs = append(callIDs, b.CallID)
				}
			}
			if len(callIDs) > from {
				m.CallIDs = callIDs[from:len(callIDs):len(callIDs)]
			}
		case harness.RoleTool:
			m.ResultFor = e.CallID
		case harness.RoleUser:
			m.Text = e.Text
		}
		out = append(out, m)
	}
	p.messages = out
	return out[:len(out):len(out)]
}

// messagesBuffered is the least room requestMessages makes for a schedule's records.
const messagesBuffered = 8

// sameMessages reports whether the first len(kept) entries are what kept records of them: the
// same roles, calls, results and user texts.
func sameMessages(kept []properties.RequestMessage, entries []harness.Entry) bool {
	if len(kept) > len(entries) {
		return false
	}
	for i, m := range kept {
		e := entries[i]
		if m.Role != e.Role {
			return false
		}
		switch e.Role {
		case harness.RoleAssistant:
			calls := 0
			for _, b := range e.Blocks {
				if b.Type == harness.BlockToolCall {
					if calls >= len(m.CallIDs) || m.CallIDs[calls] != b.CallID {
						return false
					}
					calls++
				}
			}
			if calls != len(m.CallIDs) {
				return false
			}
		case harness.RoleTool:
			if m.ResultFor != e.CallID {
				return false
			}
		case harness.RoleUser:
			if m.Text != e.Text {
				return false
			}
		}
	}
	return true
}

// wrappedFailureError builds the error a provider returns for a planned failure, wrapped as the
// plan says (the wrapped-failure fault): each layer hides the Failure one level deeper, where
// only errors.As finds it.
func (p *planProvider) wrappedFailureError(f faults.Fail) error {
	err := p.failureError(f)
	for layer, wrap := range f.Wrap {
		switch wrap {
		case faults.WrapErrorf:
			err = fmt.Errorf("simulated sdk: attempt %d: %w", layer+1, err)
		case faults.WrapJoin:
			err = errors.Join(err, fmt.Errorf("simulated sdk: closing the response body: %w", io.ErrClosedPipe))
		default:
			panic(fmt.Sprintf("sim: invariant: a validated plan wraps with %q", wrap))
		}
	}
	return err
}
