package zoo_test

import (
	"encoding/json"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/zoo"
)

// build makes a strategy from JSON parameters, failing the test on an error.
func build(t *testing.T, name, params string) harness.RetryStrategy {
	t.Helper()
	var raw json.RawMessage
	if params != "" {
		raw = json.RawMessage(params)
	}
	s, err := zoo.New(name, raw)
	require.NoError(t, err, name)
	return s
}

// fixed returns a Random that always draws v, and counts its draws.
func fixed(v float64, draws *int) func() float64 {
	return func() float64 { *draws++; return v }
}

var rateLimit = harness.Failure{Code: harness.CodeRateLimit, Message: "slow down"}

// Every formula's delays, over retries 1…50 and many draws, stay within the formula's window,
// never above CapMs, in whole milliseconds.
func TestZooDelaysStayWithinTheirFormulaAndCap(t *testing.T) {
	exp := func(base, capMs float64, n int) float64 { return math.Min(capMs, base*math.Pow(2, float64(n-1))) }
	cases := []struct {
		name, params string
		window       func(n int, prev float64) (low, high float64)
	}{
		{"none", "", func(int, float64) (float64, float64) { return 0, 0 }},
		{"constant", `{"delayMs": 40}`, func(int, float64) (float64, float64) { return 40, 40 }},
		{"exponential", "", func(n int, _ float64) (float64, float64) { e := exp(5, 2000, n); return e, e }},
		{"full-jitter", "", func(n int, _ float64) (float64, float64) { return 0, exp(5, 2000, n) }},
		{"equal-jitter", "", func(n int, _ float64) (float64, float64) { e := exp(5, 2000, n); return math.Round(e / 2), e }},
		{"decorrelated-jitter", "", func(_ int, prev float64) (float64, float64) { return 5, math.Min(2000, math.Max(5, 3*prev)) }},
		{"sdk", "", func(n int, _ float64) (float64, float64) { e := exp(500, 8000, n); return math.Round(0.75 * e), e }},
		{"grpc-throttle", "", func(n int, _ float64) (float64, float64) { return 0, exp(100, 1000, n) }},
		{"aws-quota", `{"quotaTokens": 1000000}`, func(n int, _ float64) (float64, float64) { return 0, exp(1000, 20000, n) }},
		{"sre-adaptive", "", func(n int, _ float64) (float64, float64) { return 0, exp(500, 10000, n) }},
		{"seed-always", "", func(n int, _ float64) (float64, float64) { return harness.DelayWindowMs(zoo.SeedAlwaysPolicy(), n) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := build(t, c.name, c.params)
			rng := rand.New(rand.NewSource(7))
			for trial := range 20 {
				var earlier []float64
				for n := 1; n <= 50; n++ {
					d := s.Decide(harness.RetryContext{Failure: rateLimit, Retry: n, EarlierDelaysMs: earlier, Random: rng.Float64})
					require.False(t, d.GiveUp, "retry %d", n)
					prev := 5.0
					if len(earlier) > 0 {
						prev = earlier[len(earlier)-1]
					}
					low, high := c.window(n, prev)
					assert.GreaterOrEqual(t, d.DelayMs, low, "trial %d retry %d", trial, n)
					assert.LessOrEqual(t, d.DelayMs, high, "trial %d retry %d", trial, n)
					assert.LessOrEqual(t, d.DelayMs, s.CapMs(), "retry %d", n)
					assert.Equal(t, math.Round(d.DelayMs), d.DelayMs, "whole milliseconds")
					earlier = append(earlier, d.DelayMs)
				}
			}
		})
	}
}

// With a fixed draw, each formula gives an exact delay, and draws only what it uses.
func TestZooExactDelaysForAFixedRandom(t *testing.T) {
	cases := []struct {
		name, params string
		retry        int
		earlier      []float64
		failure      harness.Failure
		random       float64
		want         float64
		draws        int
	}{
		{"none", "", 3, nil, rateLimit, 0.5, 0, 0},
		{"constant", `{"delayMs": 40}`, 3, nil, rateLimit, 0.5, 40, 0},
		{"exponential", "", 3, nil, rateLimit, 0.5, 20, 0},
		{"exponential", "", 50, nil, rateLimit, 0.5, 2000, 0},
		{"full-jitter", "", 3, nil, rateLimit, 0.5, 10, 1},
		{"full-jitter", "", 3, nil, rateLimit, 0, 0, 1},
		{"equal-jitter", "", 3, nil, rateLimit, 0.5, 15, 1},
		{"equal-jitter", "", 3, nil, rateLimit, 0, 10, 1},
		{"decorrelated-jitter", "", 1, nil, rateLimit, 0.5, 10, 1},           // random(5, 15)
		{"decorrelated-jitter", "", 2, []float64{12}, rateLimit, 0.5, 21, 1}, // random(5, 36): 20.5, rounded
		{"decorrelated-jitter", "", 9, []float64{2000}, rateLimit, 0.9, 2000, 1},
		{"sdk", "", 2, nil, rateLimit, 0.5, 875, 1}, // 1 s × (1 − 0.25·0.5)
		{"sdk", "", 2, nil, harness.Failure{Code: harness.CodeRateLimit, Message: "m", ProviderRetryAfterMs: 3000}, 0.5, 3000, 0},
		{"sdk", "", 1, nil, harness.Failure{Code: harness.CodeRateLimit, Message: "m", ProviderRetryAfterMs: 1500.2}, 0.5, 1501, 0},
		{"sdk", "", 1, nil, harness.Failure{Code: harness.CodeRateLimit, Message: "m", ProviderRetryAfterMs: 90000}, 0, 500, 1},
		{"grpc-throttle", "", 3, nil, rateLimit, 0.5, 200, 1}, // random(0, 400)
		{"aws-quota", "", 2, nil, rateLimit, 0.5, 1000, 1},    // 0.5 × 2 s
		{"sre-adaptive", "", 1, nil, rateLimit, 0.5, 250, 1},  // nothing observed: no rejection draw
		{"seed-default", "", 1, nil, rateLimit, 0.5, 500, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := build(t, c.name, c.params)
			draws := 0
			d := s.Decide(harness.RetryContext{Failure: c.failure, Retry: c.retry, EarlierDelaysMs: c.earlier, Random: fixed(c.random, &draws)})
			assert.Equal(t, harness.Wait(c.want), d)
			assert.Equal(t, c.draws, draws, "draws")
		})
	}
}

// Normal mode hands a failure that is not transient down the waterfall; always mode retries it.
func TestZooNormalModeGivesUpOnPermanentFailures(t *testing.T) {
	permanent := harness.Failure{Code: harness.CodeContextWindowExceeded, Message: "too long"}
	for _, name := range zoo.Names() {
		s := build(t, name, "")
		if s.Mode() == harness.ModeAlways {
			continue // seed-always
		}
		draws := 0
		d := s.Decide(harness.RetryContext{Failure: permanent, Retry: 1, Random: fixed(0.5, &draws)})
		assert.True(t, d.GiveUp, name)
		assert.Zero(t, draws, name)
	}
	for _, name := range []string{"none", "constant", "exponential", "full-jitter", "equal-jitter", "decorrelated-jitter", "sdk", "sre-adaptive"} {
		s := build(t, name, `{"always": true}`)
		assert.Equal(t, harness.ModeAlways, s.Mode(), name)
		draws := 0
		assert.False(t, s.Decide(harness.RetryContext{Failure: permanent, Retry: 1, Random: fixed(0.5, &draws)}).GiveUp, name)
	}
	assert.Equal(t, harness.ModeAlways, build(t, "seed-always", "").Mode())
}

// gRPC's bucket: each failure takes a token, each success gives back 0.1; at or below half no
// retry is made, and successes reopen it.
func TestZooGRPCThrottleBucket(t *testing.T) {
	g, err := zoo.NewGRPCThrottle(zoo.DefaultGRPCParams())
	require.NoError(t, err)
	retries := func() bool {
		draws := 0
		return !g.Decide(harness.RetryContext{Failure: rateLimit, Retry: 1, Random: fixed(0.5, &draws)}).GiveUp
	}
	fail := harness.AttemptOutcome{Failure: rateLimit, Attempt: 1}
	ok := harness.AttemptOutcome{Success: true, Attempt: 1}
	assert.Equal(t, 10.0, g.Tokens())
	for range 4 {
		g.Observe(fail)
	}
	assert.Equal(t, 6.0, g.Tokens())
	assert.True(t, retries(), "6 > 5")
	g.Observe(fail)
	assert.Equal(t, 5.0, g.Tokens())
	assert.False(t, retries(), "5 is half: throttled")
	g.Observe(ok)
	assert.Equal(t, 5.1, g.Tokens())
	assert.True(t, retries(), "5.1 > 5: open again")
	for range 20 {
		g.Observe(fail)
	}
	assert.Equal(t, 0.0, g.Tokens(), "never below 0")
	for range 49 {
		g.Observe(ok)
	}
	assert.Equal(t, 4.9, g.Tokens(), "exact in thousandths")
	assert.False(t, retries())
	g.Observe(ok)
	g.Observe(ok)
	assert.True(t, retries(), "5.1")
	for range 200 {
		g.Observe(ok)
	}
	assert.Equal(t, 10.0, g.Tokens(), "never above maxTokens")
	assert.Equal(t, 4, g.Budget())
}

// AWS's quota: 5 per retry, 10 after a timeout, +1 per success up to 500; no quota, no retry.
func TestZooAWSQuota(t *testing.T) {
	a, err := zoo.NewAWSQuota(zoo.DefaultAWSParams())
	require.NoError(t, err)
	decide := func(code string) bool {
		draws := 0
		return !a.Decide(harness.RetryContext{Failure: harness.Failure{Code: code, Message: "m"}, Retry: 1, Random: fixed(0.5, &draws)}).GiveUp
	}
	assert.True(t, decide(harness.CodeTimeout))
	assert.Equal(t, 490, a.Tokens())
	for range 98 {
		require.True(t, decide(harness.CodeServer))
	}
	assert.Equal(t, 0, a.Tokens())
	assert.False(t, decide(harness.CodeServer), "no quota: give up")
	a.Observe(harness.AttemptOutcome{Failure: rateLimit})
	assert.Equal(t, 0, a.Tokens(), "a failure refunds nothing")
	for range 4 {
		a.Observe(harness.AttemptOutcome{Success: true})
	}
	assert.False(t, decide(harness.CodeServer), "4 < 5")
	a.Observe(harness.AttemptOutcome{Success: true})
	assert.True(t, decide(harness.CodeServer), "5 pays for one retry")
	assert.False(t, decide(harness.CodeServer))
	for range 1000 {
		a.Observe(harness.AttemptOutcome{Success: true})
	}
	assert.Equal(t, 500, a.Tokens(), "never above the initial quota")
	assert.Equal(t, 2, a.Budget())
}

// SRE adaptive throttling drops a retry with probability (requests − K·accepts)/(requests + 1)
// over the last two minutes.
func TestZooSREAdaptiveThrottling(t *testing.T) {
	s, err := zoo.NewSREAdaptive(zoo.DefaultSREParams())
	require.NoError(t, err)
	for i := range 10 {
		s.Observe(harness.AttemptOutcome{Failure: rateLimit, AtMs: int64(i)})
	}
	assert.InDelta(t, 10.0/11, s.RejectProbability(), 1e-12)
	draws := 0
	assert.True(t, s.Decide(harness.RetryContext{Failure: rateLimit, Retry: 1, Random: fixed(0.5, &draws)}).GiveUp, "0.5 < 10/11: dropped")
	assert.Equal(t, 1, draws)
	draws = 0
	assert.Equal(t, harness.Wait(475), s.Decide(harness.RetryContext{Failure: rateLimit, Retry: 1, Random: fixed(0.95, &draws)}), "kept: 0.95 × 500")
	assert.Equal(t, 2, draws)
	for i := range 5 {
		s.Observe(harness.AttemptOutcome{Success: true, AtMs: int64(10 + i)})
	}
	requests, accepts := s.Counts()
	assert.Equal(t, 15, requests)
	assert.Equal(t, 5, accepts)
	assert.InDelta(t, 5.0/16, s.RejectProbability(), 1e-12)
	for i := range 5 {
		s.Observe(harness.AttemptOutcome{Success: true, AtMs: int64(15 + i)})
	}
	assert.Zero(t, s.RejectProbability(), "20 requests, 10 accepts: 20 − 2·10 = 0")
	draws = 0
	assert.Equal(t, harness.Wait(250), s.Decide(harness.RetryContext{Failure: rateLimit, Retry: 1, Random: fixed(0.5, &draws)}))
	assert.Equal(t, 1, draws, "no rejection draw when the probability is 0")
	// Two minutes on, the old attempts have left the window.
	s.Observe(harness.AttemptOutcome{Success: true, AtMs: 10 + 120_000})
	requests, accepts = s.Counts()
	assert.Equal(t, 10, requests, "attempts at 0…10 ms slid out")
	assert.Equal(t, 10, accepts)
}
