package anthropic

import (
	"context"
	"io"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/provider/internal/callctx"
	"github.com/turnsim/turnsim/harness/provider/internal/failmap"
)

// stream turns Messages stream events into harness chunks: text deltas as they come, each
// tool_use block as one tool-call chunk when the block stops (its input JSON is streamed in
// fragments), and the finish at message_stop. A stream that ends before it is cut (TRANSPORT);
// one with nothing in it is EMPTY_RESPONSE.
type stream struct {
	provider *Provider
	call     *callctx.Call
	sdk      *ssestream.Stream[sdk.MessageStreamEventUnion]
	chunks   callctx.Chunks
	blocks   map[int64]*toolUse
	order    []int64
	content  bool
	stopped  string
}

// toolUse is one tool_use block being assembled.
type toolUse struct {
	id, name string
	input    string
	emitted  bool
}

// Next returns the next chunk; io.EOF after the finish.
func (s *stream) Next(ctx context.Context) (harness.Chunk, error) {
	return s.chunks.Next(ctx, s.call, s.sdk.Next, func() { s.take(s.sdk.Current()) }, func() { s.end(s.sdk.Err()) })
}

// take handles one event.
func (s *stream) take(ev sdk.MessageStreamEventUnion) {
	switch ev.Type {
	case "content_block_start":
		if ev.ContentBlock.Type == "tool_use" {
			if s.blocks == nil {
				s.blocks = map[int64]*toolUse{}
			}
			s.blocks[ev.Index] = &toolUse{id: ev.ContentBlock.ID, name: ev.ContentBlock.Name}
			s.order = append(s.order, ev.Index)
			s.content = true
		}
	case "content_block_delta":
		switch ev.Delta.Type {
		case "text_delta":
			if ev.Delta.Text != "" {
				s.content = true
				s.chunks.Push(harness.Chunk{Kind: harness.ChunkText, Text: ev.Delta.Text})
			}
		case "input_json_delta":
			if tu := s.blocks[ev.Index]; tu != nil {
				tu.input += ev.Delta.PartialJSON
			}
		}
	case "content_block_stop":
		if tu := s.blocks[ev.Index]; tu != nil {
			s.emit(tu)
		}
	case "message_delta":
		if ev.Delta.StopReason != "" {
			s.stopped = string(ev.Delta.StopReason)
		}
	case "message_stop":
		s.finish()
	}
}

// emit streams one assembled tool call, once.
func (s *stream) emit(tu *toolUse) {
	if tu.emitted {
		return
	}
	tu.emitted = true
	args := tu.input
	if args == "" {
		args = "{}"
	}
	s.chunks.Push(harness.Chunk{Kind: harness.ChunkToolCall, CallID: tu.id, Name: tu.name, Arguments: args})
}

// finish ends a whole answer: any tool call whose block never stopped (cut by max_tokens) is
// streamed as it is, for the harness to drop; then the finish. A stop reason the harness has no
// outcome for (refusal, pause_turn, one newer than the adapter) ends the answer with an error
// that carries it, whatever was streamed before.
func (s *stream) finish() {
	if s.stopped == "" {
		s.stop(failmap.Cut())
		return
	}
	if s.stopped == "model_context_window_exceeded" {
		s.stop(&harness.LlmError{Failure: harness.Failure{Code: harness.CodeContextWindowExceeded, Message: "the model's context window filled up mid-answer"}})
		return
	}
	finish, known := finishOf(s.stopped, len(s.order) > 0)
	if !known {
		s.stop(failmap.UnknownFinish(s.stopped))
		return
	}
	if !s.content {
		s.stop(failmap.Empty())
		return
	}
	for _, i := range s.order {
		tu := s.blocks[i]
		if tu.id == "" || tu.name == "" {
			s.stop(&harness.LlmError{Failure: harness.Failure{Code: harness.CodeTransport, Message: "a streamed tool_use block has no id or name"}})
			return
		}
		s.emit(tu)
	}
	s.chunks.Push(harness.Chunk{Kind: harness.ChunkFinish, Finish: finish})
	s.stop(io.EOF)
}

// end handles the SDK stream's end: cleanly (err nil) or not.
func (s *stream) end(err error) {
	switch {
	case err != nil:
		s.stop(s.provider.classify(s.call, err))
	case s.stopped != "":
		s.finish() // the stop reason came; only message_stop is missing: the answer is whole
	case s.content:
		s.stop(failmap.Cut())
	default:
		s.stop(failmap.Empty())
	}
}

// stop ends the stream with err (io.EOF after a finish) and releases the request.
func (s *stream) stop(err error) {
	s.chunks.End(err)
	_ = s.sdk.Close()
	s.call.End()
}

// finishOf maps a stop reason: end_turn and stop_sequence → completed, max_tokens →
// max-tokens, tool_use → tool-calls; a completed answer that asks for tools is tool-calls.
// known is false for any other reason.
func finishOf(reason string, calls bool) (finish harness.Finish, known bool) {
	switch reason {
	case "max_tokens":
		return harness.FinishMaxTokens, true
	case "tool_use":
		return harness.FinishToolCalls, true
	case "end_turn", "stop_sequence":
		if calls {
			return harness.FinishToolCalls, true
		}
		return harness.FinishCompleted, true
	}
	return "", false
}
