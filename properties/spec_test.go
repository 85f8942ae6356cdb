package properties

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"pgregory.net/rapid"

	"github.com/turnsim/turnsim/harness"
)

// The spec's numbers, worked by hand (harness.md §3): initial 500 ms, max 10 s, jitter 0.1.
func TestSpecDelayWindowByHand(t *testing.T) {
	p := harness.RetryPolicy{Mode: harness.ModeNormal, InitialDelayMs: 500, MaxDelayMs: 10_000, JitterRatio: 0.1, MaxRetries: 2}
	for _, c := range []struct {
		n         int
		low, high float64
	}{
		{0, 450, 550}, {1, 450, 550}, {2, 900, 1100}, {5, 7200, 8800},
		{6, 9000, 10_000}, // exp 16 s is capped at 10 s before the jitter, and the jitter is capped too
		{2000, 9000, 10_000}, {1 << 30, 9000, 10_000},
	} {
		low, high := specDelayWindowMs(p, c.n)
		assert.Equal(t, [2]float64{c.low, c.high}, [2]float64{low, high}, "retry %d", c.n)
	}
	low, high := specDelayWindowMs(harness.RetryPolicy{InitialDelayMs: 0, MaxDelayMs: 0}, 2000)
	assert.Equal(t, [2]float64{0, 0}, [2]float64{low, high}, "no NaN from 0·2^1024")
	low, high = specDelayWindowMs(harness.RetryPolicy{InitialDelayMs: 333, MaxDelayMs: 1000, JitterRatio: 0.25}, 1)
	assert.Equal(t, [2]float64{250, 416}, [2]float64{low, high}, "249.75 and 416.25 rounded to whole ms")
}

func TestPolicyFromKeyReadsTheLogFormat(t *testing.T) {
	p, ok := policyFromKey("normal/initial=500/max=10000/jitter=0.1/retries=2")
	assert.True(t, ok)
	assert.Equal(t, harness.RetryPolicy{Mode: harness.ModeNormal, InitialDelayMs: 500, MaxDelayMs: 10_000, JitterRatio: 0.1, MaxRetries: 2, RetryableCodes: specRetryableCodes}, p)
	p, ok = policyFromKey("always/initial=50.5/max=900/jitter=0/codes=RATE_LIMIT+SERVER")
	assert.True(t, ok)
	assert.Equal(t, harness.RetryPolicy{Mode: harness.ModeAlways, InitialDelayMs: 50.5, MaxDelayMs: 900, RetryableCodes: []string{"RATE_LIMIT", "SERVER"}}, p)
	for _, key := range []string{
		"", "custom", "my/own/policy/key", "normal/initial=500/max=10000/jitter=0.1", // normal without retries
		"always/initial=500/max=10000/jitter=0.1/retries=2", "normal/max=10000/initial=500/jitter=0.1/retries=2",
		"normal/initial=500/max=400/jitter=0.1/retries=2", "normal/initial=500/max=1000/jitter=1.5/retries=2",
		"normal/initial=-1/max=1000/jitter=0.1/retries=2", "normal/initial=NaN/max=1000/jitter=0.1/retries=2",
		"normal/initial=5/max=1000/jitter=0.1/retries=0", "normal/initial=5/max=1000/jitter=0.1/retries=2/codes=",
		"normal/initial=5/max=1000/jitter=0.1/retries=2/codes=SERVER/extra=1", "sometimes/initial=5/max=10/jitter=0/retries=1",
	} {
		_, ok := policyFromKey(key)
		assert.False(t, ok, key)
	}
}

func TestRetryableUnderFallsBackToTheSpecsList(t *testing.T) {
	for _, code := range []string{"EMPTY_RESPONSE", "RATE_LIMIT", "SERVER", "TIMEOUT", "TRANSPORT"} {
		assert.True(t, retryableUnder(harness.RetryPolicy{}, code), code)
	}
	for _, code := range []string{"CONTEXT_WINDOW_EXCEEDED", "UNKNOWN", "TOOL_ERROR"} {
		assert.False(t, retryableUnder(harness.RetryPolicy{}, code), code)
	}
	assert.False(t, retryableUnder(harness.RetryPolicy{RetryableCodes: []string{"SERVER"}}, "TIMEOUT"))
	assert.True(t, usableRetryAfter(harness.Failure{ProviderRetryAfterMs: 1}))
	assert.False(t, usableRetryAfter(harness.Failure{ProviderRetryAfterMs: -1}))
}

// drawDelayCase draws what a local delay depends on: a policy (fractional delays included), a
// retry number and the random draw.
func drawDelayCase(t *rapid.T) (p harness.RetryPolicy, retry int, random float64) {
	initial := float64(rapid.IntRange(0, 20_000).Draw(t, "initialMs")) / float64(rapid.SampledFrom([]int{1, 4, 10}).Draw(t, "fraction"))
	p = harness.RetryPolicy{
		Mode:           harness.ModeAlways,
		InitialDelayMs: initial,
		MaxDelayMs:     initial * float64(rapid.IntRange(1, 100).Draw(t, "factor")),
		JitterRatio:    float64(rapid.IntRange(0, 100).Draw(t, "jitter%")) / 100,
	}
	return p, rapid.IntRange(1, 3000).Draw(t, "retry"), rapid.Float64Range(0, 0.999999).Draw(t, "random")
}

// The restated formula and the harness's agree today on every delay it can produce (a check on
// the oracle, not a dependency of it): any policy, retry number and random draw.
func TestSpecDelayWindowHoldsTheHarnessesDelays(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, n, random := drawDelayCase(t)
		delay := harness.LocalDelayMs(p, n, random)
		low, high := specDelayWindowMs(p, n)
		if delay < low || delay > high || delay > p.MaxDelayMs {
			t.Fatalf("harness delay %g outside the spec's window [%g, %g] (max %g)", delay, low, high, p.MaxDelayMs)
		}
	})
}

// The restated formula gives the harness's delay exactly, draw for draw (a check on the oracle,
// not a dependency of it): any policy, retry number and draw, fractional delays included.
func TestSpecLocalDelayIsTheHarnessesExactly(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, n, random := drawDelayCase(t)
		if got, want := specLocalDelayMs(p, n, random), harness.LocalDelayMs(p, n, random); got != want {
			t.Fatalf("spec's delay %g, harness's %g", got, want)
		}
	})
}
