package properties

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
