package faults

import "github.com/turnsim/turnsim/harness"

// wrappedFailure shapes a provider failure that reaches the harness wrapped in one or two other
// errors: a Failure with a code, often a status, sometimes a usable Retry-After, so that a
// harness that stops looking at the outermost error records the wrong code, status or hint.
func (d *drawer) wrappedFailure() Answer {
	maxDelay := int64(d.policy.MaxDelayMs)
	var fail Fail
	switch d.rng.Intn(5) {
	case 0:
		fail = Fail{Code: harness.CodeRateLimit, Message: "rate limited", Status: 429, RetryAfterMs: float64(d.between(1, max(maxDelay-1, 1)))}
	case 1:
		fail = Fail{Code: harness.CodeRateLimit, Message: "rate limited", Status: 429}
	case 2:
		fail = Fail{Code: harness.CodeServer, Message: "bad gateway", Status: []int{500, 502, 503}[d.rng.Intn(3)]}
	case 3:
		fail = Fail{Code: harness.CodeTimeout, Message: "request timed out", Status: 408}
	default:
		fail = Fail{Code: harness.CodeContextWindowExceeded, Message: "prompt is too long", Status: 400}
	}
	for range d.between(1, 2) {
		fail.Wrap = append(fail.Wrap, []string{WrapErrorf, WrapJoin}[d.rng.Intn(2)])
	}
	return d.failure(WrappedFailure, int(d.between(0, 2)), fail)
}

// streamIgnoringCancel shapes an answer whose stream ignores its context: text chunks, half the
// time tool calls, and the finish, each taking 0.1 to 2 s, long enough for a cancellation to land
// while the stream is still talking.
func (d *drawer) streamIgnoringCancel() Answer {
	a := Answer{Fault: StreamIgnoresCancel, Chunks: int(d.between(1, 3)), ChunkDelayMs: d.between(100, 2000), Finish: harness.FinishCompleted, IgnoreCancel: true}
	if d.rng.Float64() < 0.5 {
		n := d.between(1, 3)
		a.Calls = make([]Call, 0, n)
		for range n {
			a.Calls = append(a.Calls, d.drawCall())
		}
		a.Finish = harness.FinishToolCalls
	}
	return a
}
