package zoo

import (
	"math"

	"github.com/turnsim/turnsim/harness"
)

// What each strategy of the zoo states about itself (harness.RetryAfterStater and
// harness.DelayWindowStater), true to its Decide: a simulator judges every run by these.

// ignoresRetryAfter is the statement of a strategy that never consults a provider's hint.
var ignoresRetryAfter = harness.RetryAfterUse{Within: harness.RetryAfterIgnored}

// RetryAfter: none never consults a hint.
func (s None) RetryAfter() harness.RetryAfterUse { return ignoresRetryAfter }

// DelayWindow: none waits 0 ms, drawing nothing.
func (s None) DelayWindow(int, []float64) harness.DelayWindow { return harness.DelayWindow{} }

// RetryAfter: constant never consults a hint.
func (s Constant) RetryAfter() harness.RetryAfterUse { return ignoresRetryAfter }

// DelayWindow: constant waits its delay, drawing nothing.
func (s Constant) DelayWindow(int, []float64) harness.DelayWindow {
	return harness.DelayWindow{LowMs: s.p.DelayMs, HighMs: s.p.DelayMs}
}

// RetryAfter: Brooker's formulas alone decide, as published.
func (b Backoff) RetryAfter() harness.RetryAfterUse { return ignoresRetryAfter }

// DelayWindow is the formula's range for the n-th retry: exponential's one point, full
// jitter's [0, t], equal jitter's [t/2, t], decorrelated jitter's [base, previous·3].
func (b Backoff) DelayWindow(n int, earlier []float64) harness.DelayWindow {
	base, capMs := b.p.BaseMs, b.p.CapMs
	t := exponentialMs(base, capMs, n)
	switch b.formula {
	case FormulaFullJitter:
		return harness.DelayWindow{HighMs: t}
	case FormulaEqualJitter:
		return harness.DelayWindow{LowMs: t / 2, HighMs: t}
	case FormulaDecorrelated:
		prev := base
		if len(earlier) > 0 {
			prev = earlier[len(earlier)-1]
		}
		return harness.DelayWindow{LowMs: base, HighMs: math.Max(base, math.Min(prev, capMs)*3)}
	}
	return harness.DelayWindow{LowMs: t, HighMs: t}
}

// RetryAfter: the SDKs wait a hint up to retryAfterMaxMs, rounded up to whole milliseconds (so
// at least the hint), and ignore a longer one; with retryAfterMaxMs 0 they ignore every hint.
func (s SDK) RetryAfter() harness.RetryAfterUse {
	if s.p.RetryAfterMaxMs == 0 {
		return ignoresRetryAfter
	}
	return harness.RetryAfterUse{Within: harness.RetryAfterAtLeast, LimitMs: s.p.RetryAfterMaxMs}
}

// DelayWindow is the SDKs' formula's range: min(initial·2^(n-1), max)·(1 − r·random), falling
// from the exponential delay as the draw grows.
func (s SDK) DelayWindow(n int, _ []float64) harness.DelayWindow {
	exp := exponentialMs(s.p.InitialDelayMs, s.p.MaxDelayMs, n)
	return harness.DelayWindow{LowMs: exp * (1 - s.p.JitterRatio), HighMs: exp, Falling: true}
}

// RetryAfter: gRPC's server pushback is not a Retry-After; the hint is not consulted.
func (g *GRPCThrottle) RetryAfter() harness.RetryAfterUse { return ignoresRetryAfter }

// DelayWindow is A6's full-jitter range, [0, min(initialBackoff·multiplier^(n-1), maxBackoff)].
func (g *GRPCThrottle) DelayWindow(n int, _ []float64) harness.DelayWindow {
	e := float64(min(max(n-1, 0), 1<<20))
	return harness.DelayWindow{HighMs: math.Min(g.p.InitialBackoffMs*math.Pow(g.p.BackoffMultiplier, e), g.p.MaxBackoffMs)}
}

// RetryAfter: standard retry mode does not consult the hint.
func (a *AWSQuota) RetryAfter() harness.RetryAfterUse { return ignoresRetryAfter }

// DelayWindow is the full-jitter range, [0, min(base·2^(n-1), maxBackoff)].
func (a *AWSQuota) DelayWindow(n int, _ []float64) harness.DelayWindow {
	return harness.DelayWindow{HighMs: exponentialMs(a.p.BaseMs, a.p.MaxBackoffMs, n)}
}

// RetryAfter: adaptive throttling does not consult the hint.
func (s *SREAdaptive) RetryAfter() harness.RetryAfterUse { return ignoresRetryAfter }

// DelayWindow is the full-jitter range, [0, min(base·2^(n-1), cap)], drawn by the decision's last
// draw (a rejection draw comes first).
func (s *SREAdaptive) DelayWindow(n int, _ []float64) harness.DelayWindow {
	return harness.DelayWindow{HighMs: exponentialMs(s.p.BaseMs, s.p.CapMs, n)}
}
