package openai

import (
	"context"
	"io"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/provider/internal/callctx"
	"github.com/turnsim/turnsim/harness/provider/internal/failmap"
)

// stream turns Chat Completions chunks into harness chunks. Text deltas pass through as they
// come; tool-call fragments (an id and name first, then argument pieces, keyed by index) are held
// until the finish reason, then streamed as whole calls in index order, then the finish. A stream
// that ends without a finish reason is cut (TRANSPORT); one that has nothing in it is
// EMPTY_RESPONSE.
type stream struct {
	provider *Provider
	call     *callctx.Call
	sdk      *ssestream.Stream[sdk.ChatCompletionChunk]
	chunks   callctx.Chunks
	calls    []*toolCall
	content  bool
	finished bool
}

// toolCall is one call being assembled from its fragments.
type toolCall struct {
	index     int64
	id, name  string
	arguments string
}

// Next returns the next chunk; io.EOF after the finish.
func (s *stream) Next(ctx context.Context) (harness.Chunk, error) {
	return s.chunks.Next(ctx, s.call, s.sdk.Next, func() { s.take(s.sdk.Current()) }, func() { s.end(s.sdk.Err()) })
}

// take adds one event's deltas. Only the first choice counts: the harness asks for one.
func (s *stream) take(chunk sdk.ChatCompletionChunk) {
	if len(chunk.Choices) == 0 {
		return // a usage-only or keep-alive chunk
	}
	choice := chunk.Choices[0]
	if choice.Delta.Content != "" {
		s.content = true
		s.chunks.Push(harness.Chunk{Kind: harness.ChunkText, Text: choice.Delta.Content})
	}
	for _, frag := range choice.Delta.ToolCalls {
		tc := s.callAt(frag.Index)
		if frag.ID != "" {
			tc.id = frag.ID
		}
		if frag.Function.Name != "" {
			tc.name = frag.Function.Name
		}
		tc.arguments += frag.Function.Arguments
	}
	if choice.FinishReason != "" {
		s.finishWith(choice.FinishReason)
	}
}

// callAt returns the call being assembled at index, starting it if it is new.
func (s *stream) callAt(index int64) *toolCall {
	for _, tc := range s.calls {
		if tc.index == index {
			return tc
		}
	}
	tc := &toolCall{index: index}
	s.calls = append(s.calls, tc)
	return tc
}

// finishWith streams the assembled calls and the finish, and ends the request: the answer is
// whole, so nothing after it (a usage chunk, [DONE]) is waited for. A finish reason the harness
// has no outcome for (content_filter, one newer than the adapter) ends the answer with an error
// that carries it instead, whatever was streamed before.
func (s *stream) finishWith(reason string) {
	finish, known := finishOf(reason)
	if !known {
		s.stop(failmap.UnknownFinish(reason))
		return
	}
	if !s.content && len(s.calls) == 0 {
		s.stop(failmap.Empty())
		return
	}
	for _, tc := range s.calls {
		if tc.id == "" || tc.name == "" {
			s.stop(&harness.LlmError{Failure: harness.Failure{Code: harness.CodeTransport, Message: "a streamed tool call has no id or name"}})
			return
		}
		arguments := tc.arguments
		if arguments == "" {
			arguments = "{}" // a call with no arguments streamed none: it takes an empty object
		}
		s.chunks.Push(harness.Chunk{Kind: harness.ChunkToolCall, CallID: tc.id, Name: tc.name, Arguments: arguments})
	}
	if finish == harness.FinishCompleted && len(s.calls) > 0 {
		// Some OpenAI-compatible servers say "stop" after tool calls; the calls are what counts.
		finish = harness.FinishToolCalls
	}
	s.chunks.Push(harness.Chunk{Kind: harness.ChunkFinish, Finish: finish})
	s.finished = true
	s.stop(io.EOF)
}

// end handles the SDK stream's end: cleanly (err nil) or not.
func (s *stream) end(err error) {
	switch {
	case err != nil:
		s.stop(s.provider.classify(s.call, err))
	case s.content || len(s.calls) > 0:
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

// finishOf maps a finish reason: stop → completed, length → max-tokens, tool_calls (and the
// legacy function_call) → tool-calls. known is false for any other (content_filter …).
func finishOf(reason string) (finish harness.Finish, known bool) {
	switch reason {
	case "stop":
		return harness.FinishCompleted, true
	case "length":
		return harness.FinishMaxTokens, true
	case "tool_calls", "function_call":
		return harness.FinishToolCalls, true
	}
	return "", false
}
