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
	"github.com/turnsim/turnsim/properties"
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
			err := new(planProvider).wrappedFailureError(f)
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

// wholeRequestMessages is requestMessages as it was, every record built whole: the reference.
func wholeRequestMessages(entries []harness.Entry) []properties.RequestMessage {
	out := make([]properties.RequestMessage, len(entries))
	for i, e := range entries {
		out[i] = properties.RequestMessage{Role: e.Role}
		switch e.Role {
		case harness.RoleAssistant:
			for _, b := range e.Blocks {
				if b.Type == harness.BlockToolCall {
					out[i].CallIDs = append(out[i].CallIDs, b.CallID)
				}
			}
		case harness.RoleTool:
			out[i].ResultFor = e.CallID
		case harness.RoleUser:
			out[i].Text = e.Text
		}
	}
	return out
}

// The records requestMessages shares between requests are the records built whole, whatever
// the conversations do (grow, repeat for a retry, shrink in a compaction, change an entry), and
// an append to one record never changes another.
func TestRequestMessagesAreBuiltWhole(t *testing.T) {
	user := func(text string) harness.Entry { return harness.Entry{Role: harness.RoleUser, Text: text} }
	asks := func(ids ...string) harness.Entry {
		e := harness.Entry{Role: harness.RoleAssistant, Blocks: []harness.Block{{Type: harness.BlockText, Text: "thinking"}}}
		for _, id := range ids {
			e.Blocks = append(e.Blocks, harness.Block{Type: harness.BlockToolCall, CallID: id})
		}
		return e
	}
	result := func(id string) harness.Entry { return harness.Entry{Role: harness.RoleTool, CallID: id} }
	base := []harness.Entry{user("task 1"), asks("call-1-1", "call-1-2"), result("call-1-1"), result("call-1-2")}
	long := append(append([]harness.Entry{}, base...), asks(), user("steer 2"), asks("call-3-1"), result("call-3-1"),
		user("followup 3"), asks(), user("inject 4"), asks("call-5-1", "call-5-2", "call-5-3"))
	conversations := [][]harness.Entry{
		base[:1], base[:1], base[:2], base, base, long[:7], long, long,
		{user("compacted"), asks()}, // shrunk and changed
		{user("compacted"), asks(), user("followup 3")},
		{user("compacted"), asks("call-9-1"), user("followup 3")}, // an entry's calls changed
		{user("compacted"), asks("call-9-1"), result("call-9-2")},
		{user("compacted"), asks("call-9-1"), result("call-9-3")},              // a result changed
		{user("compacted"), asks("call-9-4"), result("call-9-3")},              // a call's id changed
		{user("compacted again"), asks("call-9-4"), result("call-9-3")},        // a user's text changed
		{user("compacted"), {Role: harness.RoleAssistant}, result("call-9-2")}, // calls dropped
		{user(""), asks("call-9-4", "call-9-5")}, {user(""), asks("call-9-4")}, // a call fewer
		{user("")}, {result(""), asks()}, // another role, no text, no id
		{}, base[:1], {user("task 2")}, long,
	}
	p := &planProvider{}
	var got, want [][]properties.RequestMessage
	for _, c := range conversations {
		got = append(got, p.requestMessages(c))
		want = append(want, wholeRequestMessages(c))
	}
	for i := range got {
		_ = append(got[i], properties.RequestMessage{Role: "scribble"}) // must not reach another record
	}
	for i := range got {
		require.Equal(t, want[i], got[i], "conversation %d", i)
		require.Equal(t, len(got[i]), cap(got[i]), "conversation %d: a record's capacity is its length", i)
	}
}
