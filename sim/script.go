package sim

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/turnsim/turnsim/harness"
)

// Beat is one streamed chunk and how long the provider takes to produce it.
type Beat struct {
	After time.Duration
	Chunk harness.Chunk
}

// Answer is one scripted reply to a request: the chunks it streams, or the error it fails with
// after streaming FailAfter of them (Err nil means success).
type Answer struct {
	Beats []Beat
	// FailAfter is how many beats stream before Err; FailDelay is how long after the last of
	// them the failure arrives.
	FailAfter int
	FailDelay time.Duration
	Err       error
}

// ScriptedProvider answers requests in order from a script, sleeping through the injected
// runtime so that slow streams and their cancellation happen in (virtual) time. When the script
// runs out it answers with a short completed text, so a run always settles.
type ScriptedProvider struct {
	ProviderName string
	Runtime      harness.Runtime

	mu      sync.Mutex
	answers []Answer
	served  int
}

// NewScriptedProvider returns a provider named name that serves answers in order.
func NewScriptedProvider(name string, rt harness.Runtime, answers ...Answer) *ScriptedProvider {
	return &ScriptedProvider{ProviderName: name, Runtime: rt, answers: answers}
}

// Name is the provider's name in retry chains.
func (p *ScriptedProvider) Name() string { return p.ProviderName }

// Served returns how many requests the provider has answered.
func (p *ScriptedProvider) Served() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.served
}

// Stream serves the next scripted answer.
func (p *ScriptedProvider) Stream(ctx context.Context, _ harness.Request) (harness.Stream, error) {
	p.mu.Lock()
	answer := Text(100*time.Millisecond, "ok", harness.FinishCompleted)
	if p.served < len(p.answers) {
		answer = p.answers[p.served]
	}
	p.served++
	p.mu.Unlock()
	if answer.Err != nil && answer.FailAfter == 0 && answer.FailDelay == 0 {
		return nil, answer.Err
	}
	return &scriptedStream{rt: p.Runtime, answer: answer}, nil
}

type scriptedStream struct {
	rt     harness.Runtime
	answer Answer
	next   int
}

func (s *scriptedStream) Next(ctx context.Context) (harness.Chunk, error) {
	if s.answer.Err != nil && s.next == s.answer.FailAfter {
		if err := s.rt.Sleep(s.answer.FailDelay, ctx); err != nil {
			return harness.Chunk{}, err
		}
		s.next++
		return harness.Chunk{}, s.answer.Err
	}
	if s.next >= len(s.answer.Beats) {
		return harness.Chunk{}, io.EOF
	}
	beat := s.answer.Beats[s.next]
	if err := s.rt.Sleep(beat.After, ctx); err != nil {
		return harness.Chunk{}, err
	}
	s.next++
	return beat.Chunk, nil
}

// Text is an answer that streams text after delay and then finishes at once.
func Text(delay time.Duration, text string, finish harness.Finish) Answer {
	return Answer{Beats: []Beat{
		{After: delay, Chunk: harness.Chunk{Kind: harness.ChunkText, Text: text}},
		{Chunk: harness.Chunk{Kind: harness.ChunkFinish, Finish: finish}},
	}}
}

// Fail is an answer that fails with err after delay, before any chunk.
func Fail(delay time.Duration, err error) Answer {
	return Answer{FailDelay: delay, Err: err}
}

// Failure wraps a Failure as the provider error that carries it.
func Failure(code, message string) *harness.LlmError {
	return &harness.LlmError{Failure: harness.Failure{Code: code, Message: message}}
}

// RetryAfter is a RATE_LIMIT failure with a provider Retry-After hint.
func RetryAfter(hint time.Duration) *harness.LlmError {
	return &harness.LlmError{Failure: harness.Failure{
		Code: harness.CodeRateLimit, Message: "rate limited", Status: 429,
		ProviderRetryAfterMs: float64(hint) / float64(time.Millisecond),
	}}
}

// SleepTool is a tool that takes d to answer. If honourCancel, it stops early (with an error)
// when its context is cancelled; otherwise it ignores cancellation, as a stuck call would.
func SleepTool(rt harness.Runtime, name string, d time.Duration, parallel, honourCancel bool) harness.Tool {
	return harness.Tool{
		Name:     name,
		Parallel: parallel,
		Run: func(ctx context.Context, arguments string) (string, error) {
			if honourCancel {
				if err := rt.Sleep(d, ctx); err != nil {
					return "", err
				}
			} else if err := rt.Sleep(d); err != nil {
				return "", err
			}
			return name + " done: " + arguments, nil
		},
	}
}
