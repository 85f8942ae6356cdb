package faults

import (
	"slices"

	"github.com/turnsim/turnsim/harness"
)

// The spec's defaults, stated here in faults' own words (harness.md §3 and §6) rather than read
// from harness.DefaultRetryPolicy or harness.DefaultMaxParallelToolCalls: a plan records these
// values explicitly, so when a plan builds the agent with the harness's own defaults
// (Plan.HarnessDefaults), the properties judge those defaults against the spec, and a drift in
// them is a violation instead of a new normal.

// SpecMaxParallelToolCalls is the pool limit when none is configured: "(default 10)".
const SpecMaxParallelToolCalls = 10

// SpecRetryPolicy is the spec's default policy: "mode normal; initialDelay 500 ms, maxDelay 10 s,
// jitterRatio 0.1, maxRetries 2; retryable codes EMPTY_RESPONSE RATE_LIMIT SERVER TIMEOUT
// TRANSPORT". Every field is set, so a plan that holds it needs no default to be read.
func SpecRetryPolicy() harness.RetryPolicy {
	return harness.RetryPolicy{
		Mode:           harness.ModeNormal,
		InitialDelayMs: 500,
		MaxDelayMs:     10_000,
		JitterRatio:    0.1,
		MaxRetries:     2,
		RetryableCodes: []string{harness.CodeEmptyResponse, harness.CodeRateLimit, harness.CodeServer, harness.CodeTimeout, harness.CodeTransport},
	}
}

// samePolicy reports whether a and b set every field alike.
func samePolicy(a, b harness.RetryPolicy) bool {
	return a.Mode == b.Mode && a.InitialDelayMs == b.InitialDelayMs && a.MaxDelayMs == b.MaxDelayMs &&
		a.JitterRatio == b.JitterRatio && a.MaxRetries == b.MaxRetries && a.Key == b.Key &&
		slices.Equal(a.RetryableCodes, b.RetryableCodes)
}
