package properties

// The spec's own numbers and formulas, restated here on purpose (harness.md §3 and §6, and the
// revision "local delays are whole milliseconds"). An oracle that read them from the harness
// (its default retryable codes, its delay window, its policyKey parser, …) would move
// with the code it judges and could never catch a drift in it; independence_test.go keeps it so.

import (
	"math"
	"slices"

	"github.com/turnsim/turnsim/harness"
)

// specRetryableCodes are the codes normal mode retries when a policy names none: "retryable codes
// EMPTY_RESPONSE RATE_LIMIT SERVER TIMEOUT TRANSPORT".
var specRetryableCodes = []string{
	harness.CodeEmptyResponse, harness.CodeRateLimit, harness.CodeServer, harness.CodeTimeout, harness.CodeTransport,
}

// specPoolLimitDefault is maxParallelToolCalls when none is configured: "(default 10)".
const specPoolLimitDefault = 10

// specExponentMax bounds the backoff exponent: "e = min(n-1, 1024)".
const specExponentMax = 1024

// retryableUnder reports whether normal mode under policy p retries code: p's list, or the
// spec's when p names none.
func retryableUnder(p harness.RetryPolicy, code string) bool {
	codes := p.RetryableCodes
	if len(codes) == 0 {
		codes = specRetryableCodes
	}
	return slices.Contains(codes, code)
}

// usableRetryAfter reports whether f carries a provider Retry-After the spec lets llm-retry use:
// "positive and finite"; anything else is ignored and never recorded.
func usableRetryAfter(f harness.Failure) bool {
	hint := f.ProviderRetryAfterMs
	return hint > 0 && !math.IsInf(hint, 0) && !math.IsNaN(hint)
}

// specExponentialMs is the spec's exp for the n-th retry (n from 1; below 1 read as 1), before
// any jitter: e = min(n-1, 1024); exp = min(initial·2^e, max).
func specExponentialMs(p harness.RetryPolicy, n int) float64 {
	e := min(max(n-1, 0), specExponentMax)
	if p.InitialDelayMs == 0 {
		return 0 // 0·2^1024 would be NaN
	}
	if growth := math.Pow(2, float64(e)); p.InitialDelayMs*growth < p.MaxDelayMs {
		return p.InitialDelayMs * growth
	}
	return p.MaxDelayMs
}

// specDelayWindowMs is the closed range of delays the spec allows for the n-th retry (n from 1):
//
//	e = min(n-1, 1024); exp = min(initial·2^e, max); jitter ∈ [1-r, 1+r); delay = min(exp·jitter, max)
//
// rounded to whole milliseconds and never above max (a fractional max may itself be the delay).
// The jitter's open upper end closes under rounding, so both ends are included. n below 1 is
// read as 1.
func specDelayWindowMs(p harness.RetryPolicy, n int) (lowMs, highMs float64) {
	exponential := specExponentialMs(p, n)
	// Whole milliseconds, and never above max: when max is itself fractional the cap wins.
	whole := func(ms float64) float64 { return math.Min(math.Round(ms), p.MaxDelayMs) }
	return whole(exponential * (1 - p.JitterRatio)), whole(exponential * (1 + p.JitterRatio))
}

// specLocalDelayMs is the delay the spec gives the n-th retry (n from 1) on the draw random, in
// [0, 1):
//
//	e = min(n-1, 1024); exp = min(initial·2^e, max); jitter = 1 - r + 2·r·random; delay = min(exp·jitter, max)
//
// rounded to whole milliseconds and never above max, as specDelayWindowMs bounds it. n below 1
// is read as 1.
func specLocalDelayMs(p harness.RetryPolicy, n int, random float64) float64 {
	exponential := specExponentialMs(p, n)
	jitter := 1 - p.JitterRatio + 2*p.JitterRatio*random
	return math.Min(math.Round(exponential*jitter), p.MaxDelayMs) // rounding never lifts it above max
}

// specRetryAfter is the seed's rule for a provider's Retry-After, as a strategy would state it:
// "at or below maxDelay is used exactly, no jitter; above maxDelay normal mode gives up
// (next()), always mode uses the local delay".
func specRetryAfter(p harness.RetryPolicy) harness.RetryAfterUse {
	return harness.RetryAfterUse{Within: harness.RetryAfterExact, LimitMs: p.MaxDelayMs, GivesUpBeyond: true}
}
