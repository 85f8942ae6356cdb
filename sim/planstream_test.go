package sim

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/sim/sched"
)

// However the provider's failure is wrapped, FailureOf finds it with its code, status and
// Retry-After, and ErrorChain still shows every error around it.
func TestWrappedFailuresAreClassifiedThroughTheWrapping(t *testing.T) {
	inner := faults.Fail{Code: harness.CodeRateLimit, Message: "rate limited", Status: 429, RetryAfterMs: 1500}
	for name, wrap := range map[string][]string{
		"errorf":       {faults.WrapErrorf},
		"join":         {faults.WrapJoin},
		"errorf, join": {faults.WrapErrorf, faults.WrapJoin},
		"join, errorf": {faults.WrapJoin, faults.WrapErrorf},
		"errorf twice": {faults.WrapErrorf, faults.WrapErrorf},
		"with a cause": {faults.WrapJoin},
		"not wrapped":  nil,
	} {
		t.Run(name, func(t *testing.T) {
			f := inner
			f.Wrap = wrap
			f.CauseChain = name == "with a cause"
			err := wrappedFailureError(f)
			failure, ok := harness.FailureOf(err)
			require.True(t, ok, "FailureOf found no Failure in %v", err)
			assert.Equal(t, harness.Failure{Code: f.Code, Message: f.Message, Status: 429, ProviderRetryAfterMs: 1500}, failure)
			chain := harness.ErrorChain(err)
			assert.Contains(t, chain, "rate limited")
			for _, layer := range wrap {
				if layer == faults.WrapJoin {
					assert.Contains(t, chain, "closing the response body")
				}
			}
			if f.CauseChain {
				assert.Contains(t, chain, "connection refused")
			}
		})
	}
}

// A stream of the stream-ignores-cancel fault goes on with its text, tool-call and finish chunks
// after its context is cancelled, each after its delay, then ends.
func TestStreamIgnoringCancelKeepsTalking(t *testing.T) {
	plan := faults.Plan{HorizonMs: 60_000, Answers: []faults.Answer{{
		Fault: faults.StreamIgnoresCancel, Chunks: 2, ChunkDelayMs: 100, IgnoreCancel: true,
		Calls: []faults.Call{{Name: "read", LatencyMs: 1, Outcome: faults.OutcomeOK}}, Finish: harness.FinishToolCalls,
	}}}
	s := sched.New(sched.Options{Seed: 1})
	var kinds []string
	var times []int64
	var streamErr error // checked outside: a scheduler task must not stop the test
	report := s.Run("main", func() {
		p := &planProvider{runtime: s, tracer: newTracer(s), plan: &plan}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		stream, err := p.Stream(ctx, harness.Request{Turn: 1, Step: 1, Attempt: 1})
		for err == nil {
			var chunk harness.Chunk
			if chunk, err = stream.Next(ctx); err == nil {
				kinds = append(kinds, chunk.Kind)
				times = append(times, p.tracer.sinceStartMs())
			}
		}
		if err != io.EOF {
			streamErr = err
		}
	})
	require.Empty(t, report.Findings)
	require.NoError(t, streamErr, "the stream ignores its cancelled context")
	assert.Equal(t, []string{harness.ChunkText, harness.ChunkText, harness.ChunkToolCall, harness.ChunkFinish}, kinds)
	assert.Equal(t, []int64{100, 200, 300, 400}, times)
}

// partText is fmt.Sprintf("part %d ", n), from its table and beyond it.
func TestPartTextIsSprintf(t *testing.T) {
	for n := -1; n <= len(partTexts)+2; n++ {
		assert.Equal(t, fmt.Sprintf("part %d ", n), partText(n))
	}
}
