package properties

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/turnsim/turnsim/harness"
)

// The llm-retry plugin's lifetime ends once, at the first plugin-end (or dispose). A failure it
// was handling then gets no further attempt; a failure after it was never its to handle, and a
// handler below it may retry that one, whatever later plugin-ends say. Found by rapid: a
// schedule with two plugin-ends, at 0 and 11 ms, the failure at 10 ms between them and the
// compaction handler's retry at 60 ms, was reported as a retry after disposal.
func TestNoRetryAfterDisposeCountsTheFirstEnd(t *testing.T) {
	trace := func(ends ...int64) *Run {
		r := settledTurn(t)
		r.Trace.Requests = []Request{
			{Turn: 1, Step: 1, Attempt: 1, StartMs: 0, EndMs: 10, Failed: true, FailCode: "CONTEXT_WINDOW_EXCEEDED"},
			{Turn: 1, Step: 1, Attempt: 2, StartMs: 60, EndMs: 80},
		}
		for i, at := range ends {
			r.Trace.Cancels = append(r.Trace.Cancels, Cancel{Action: i, AtMs: at, Kind: pluginEnd})
		}
		return r
	}
	assert.Zero(t, fired(trace(0, 11))["no-retry-after-dispose"], "ended at 0, before the failure: not the plugin's")
	assert.Zero(t, fired(trace(11, 0))["no-retry-after-dispose"], "the first end is the earliest, not the first listed")
	assert.Equal(t, 1, fired(trace(11))["no-retry-after-dispose"], "ended at 11 while handling the failure of 10: no attempt after")
	assert.Equal(t, 1, fired(trace(11, 30))["no-retry-after-dispose"], "a second end changes nothing")
}

// A record of a failure is about the last attempt of its step to fail before the record was
// written. Two attempts can fail in the same millisecond: found by FuzzPolicies (initial delay
// 0, no jitter), where attempt 1's RATE_LIMIT was retried at once and attempt 2 failed with a
// Retry-After over the cap in the same millisecond, after llm/retry #1 had been written for
// attempt 1: matched by time alone, #1 was judged against attempt 2's hint.
func TestFailureRecordedFaithfullyTakesTheFailureBeforeTheRecord(t *testing.T) {
	retry := func(failure harness.Failure) harness.EventData {
		return harness.LlmRetry{RetryID: "r1", Turn: 1, Step: 1, Provider: "p", Mode: harness.ModeNormal, PolicyKey: "k", Retry: 1, MaxRetries: new(int), DelayMs: 0, Failure: failure}
	}
	r := run(t, harness.TurnStart{Turn: 1}, harness.StepStart{Turn: 1, Step: 1}, retry(harness.Failure{Code: harness.CodeRateLimit, Message: "slow down"}))
	for i := range r.Log {
		r.Log[i].Time = 135
	}
	// The record is event 3; attempt 1 failed when the log held 2 events, attempt 2 after it.
	r.Trace.Requests = []Request{
		{Turn: 1, Step: 1, Attempt: 1, StartMs: 0, EndMs: 135, Failed: true, FailCode: harness.CodeRateLimit, EndSeq: 2},
		{Turn: 1, Step: 1, Attempt: 2, StartMs: 135, EndMs: 135, Failed: true, FailCode: harness.CodeRateLimit, RetryAfterMs: 134486, EndSeq: 4},
	}
	assert.Zero(t, fired(r)["failure-recorded-faithfully"], "#1 is attempt 1's record")
	r.Trace.Requests[1].EndSeq = 2 // both before the record: it is about the later one, attempt 2
	assert.Equal(t, 1, fired(r)["failure-recorded-faithfully"])
}
