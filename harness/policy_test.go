package harness

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestDefaultPolicyIsTheSeeds(t *testing.T) {
	p := DefaultRetryPolicy()
	require.NoError(t, p.Validate())
	assert.Equal(t, ModeNormal, p.Mode)
	assert.Equal(t, 500.0, p.InitialDelayMs)
	assert.Equal(t, 10000.0, p.MaxDelayMs)
	assert.Equal(t, 0.1, p.JitterRatio)
	assert.Equal(t, 2, p.MaxRetries)
	assert.Equal(t, []string{"EMPTY_RESPONSE", "RATE_LIMIT", "SERVER", "TIMEOUT", "TRANSPORT"}, p.RetryableCodes)
}

func TestPolicyValidationNamesTheField(t *testing.T) {
	base := DefaultRetryPolicy()
	always := base
	always.Mode, always.MaxRetries = ModeAlways, 0
	cases := []struct {
		name  string
		edit  func(p *RetryPolicy)
		field string
	}{
		{"unknown mode", func(p *RetryPolicy) { p.Mode = "sometimes" }, "mode"},
		{"negative initial", func(p *RetryPolicy) { p.InitialDelayMs = -1 }, "initialDelayMs"},
		{"NaN initial", func(p *RetryPolicy) { p.InitialDelayMs = math.NaN() }, "initialDelayMs"},
		{"infinite max", func(p *RetryPolicy) { p.MaxDelayMs = math.Inf(1) }, "maxDelayMs"},
		{"NaN max", func(p *RetryPolicy) { p.MaxDelayMs = math.NaN() }, "maxDelayMs"},
		{"max above the timer ceiling", func(p *RetryPolicy) { p.MaxDelayMs = TimerCeilingMs + 1 }, "maxDelayMs"},
		{"max below initial", func(p *RetryPolicy) { p.MaxDelayMs = 100 }, "maxDelayMs"},
		{"jitter above 1", func(p *RetryPolicy) { p.JitterRatio = 1.5 }, "jitterRatio"},
		{"negative jitter", func(p *RetryPolicy) { p.JitterRatio = -0.1 }, "jitterRatio"},
		{"NaN jitter", func(p *RetryPolicy) { p.JitterRatio = math.NaN() }, "jitterRatio"},
		{"no retries in normal mode", func(p *RetryPolicy) { p.MaxRetries = 0 }, "maxRetries"},
		{"retries in always mode", func(p *RetryPolicy) { p.Mode = ModeAlways; p.MaxRetries = 3 }, "maxRetries"},
		{"empty retryable code", func(p *RetryPolicy) { p.RetryableCodes = []string{"RATE_LIMIT", " "} }, "retryableCodes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := base
			c.edit(&p)
			err := p.Validate()
			var pe *PolicyError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, c.field, pe.Field)
			assert.Contains(t, err.Error(), "harness: retry policy: "+c.field+":")
		})
	}
	require.NoError(t, always.Validate())
}

func TestLocalDelayFollowsTheSeedsFormula(t *testing.T) {
	p := DefaultRetryPolicy()
	assert.Equal(t, 450.0, LocalDelayMs(p, 1, 0))
	assert.Equal(t, 500.0, LocalDelayMs(p, 1, 0.5))
	assert.Equal(t, 1000.0, LocalDelayMs(p, 2, 0.5))
	assert.Equal(t, 2000.0, LocalDelayMs(p, 3, 0.5))
	assert.Equal(t, 10000.0, LocalDelayMs(p, 6, 0.5), "16000 is capped")
	assert.Equal(t, 10000.0, LocalDelayMs(p, 6, 0.999), "jitter never lifts a delay above the cap")
	assert.Equal(t, 9000.0, LocalDelayMs(p, 7, 0), "jitter may take a capped delay below it")
}

func TestLocalDelayBoundedForEveryRetryNumber(t *testing.T) {
	p := DefaultRetryPolicy()
	for n := 1; n <= 2000; n++ {
		for _, r := range []float64{0, 0.25, 0.5, 0.999999} {
			d := LocalDelayMs(p, n, r)
			low, high := DelayWindowMs(p, n)
			require.False(t, math.IsNaN(d) || math.IsInf(d, 0), "n=%d", n)
			require.GreaterOrEqual(t, d, 0.0, "n=%d", n)
			require.LessOrEqual(t, d, p.MaxDelayMs, "n=%d", n)
			require.True(t, d >= low && d <= high, "n=%d r=%g: %g outside [%g, %g]", n, r, d, low, high)
		}
	}
}

// Any policy Validate accepts yields finite delays within [0, max] and inside the jitter window,
// for any retry number and any draw: the formula cannot overflow or go negative.
func TestLocalDelayBoundedForAnyValidPolicy(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		initial := rapid.Float64Range(0, 1e6).Draw(t, "initialDelayMs")
		p := RetryPolicy{
			Mode:           ModeNormal,
			InitialDelayMs: initial,
			MaxDelayMs:     rapid.Float64Range(initial, TimerCeilingMs).Draw(t, "maxDelayMs"),
			JitterRatio:    rapid.Float64Range(0, 1).Draw(t, "jitterRatio"),
			MaxRetries:     rapid.IntRange(1, 100).Draw(t, "maxRetries"),
		}
		if p.Validate() != nil {
			t.Skip("not a valid policy")
		}
		n := rapid.IntRange(-5, 5000).Draw(t, "n")
		r := rapid.Float64Range(0, 0.9999999).Draw(t, "random")
		d := LocalDelayMs(p, n, r)
		low, high := DelayWindowMs(p, n)
		if math.IsNaN(d) || d < 0 || d > p.MaxDelayMs || d < low || d > high {
			t.Fatalf("delay %g for n=%d outside [%g, %g] (max %g)", d, n, low, high, p.MaxDelayMs)
		}
	})
}

func TestPolicyKeyChangesWithThePolicy(t *testing.T) {
	p := DefaultRetryPolicy()
	q := p
	q.MaxDelayMs = 20000
	assert.NotEqual(t, p.PolicyKey(), q.PolicyKey())
	assert.Equal(t, "normal/initial=500/max=10000/jitter=0.1/retries=2", p.PolicyKey())
	q.Key = "mine"
	assert.Equal(t, "mine", q.PolicyKey())
}

func TestParsePolicyKeyReadsBackDerivedKeys(t *testing.T) {
	for _, p := range []RetryPolicy{DefaultRetryPolicy(), {Mode: ModeAlways, InitialDelayMs: 50, MaxDelayMs: 2500.5, JitterRatio: 0}} {
		back, ok := ParsePolicyKey(p.PolicyKey())
		require.True(t, ok, p.PolicyKey())
		assert.Equal(t, p.PolicyKey(), back.PolicyKey())
	}
	for _, key := range []string{"mine", "normal/initial=x/max=1/jitter=0/retries=1", "normal/initial=500/max=100/jitter=0.1/retries=2", "sometimes/initial=1/max=2/jitter=0"} {
		_, ok := ParsePolicyKey(key)
		assert.False(t, ok, key)
	}
}

func TestPolicyKeyNamesNonDefaultRetryableCodes(t *testing.T) {
	p := DefaultRetryPolicy()
	q := p
	q.RetryableCodes = []string{CodeRateLimit}
	assert.NotEqual(t, p.PolicyKey(), q.PolicyKey(), "changing what is retried starts a new chain")
	back, ok := ParsePolicyKey(q.PolicyKey())
	require.True(t, ok)
	assert.Equal(t, []string{CodeRateLimit}, back.RetryableCodes)
}

// The key is appended into a buffer for speed; it must stay byte-identical to the formula it
// replaced, since keys chain retries across restarts and name policies in saved logs.
func TestPolicyKeyKeepsItsFormula(t *testing.T) {
	formula := func(p RetryPolicy) string {
		f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
		key := fmt.Sprintf("%s/initial=%s/max=%s/jitter=%s", p.Mode, f(p.InitialDelayMs), f(p.MaxDelayMs), f(p.JitterRatio))
		if p.Mode == ModeNormal {
			key += "/retries=" + strconv.Itoa(p.MaxRetries)
		}
		if len(p.RetryableCodes) > 0 && !slices.Equal(p.RetryableCodes, DefaultRetryableCodes) {
			key += "/codes=" + strings.Join(p.RetryableCodes, "+")
		}
		return key
	}
	r := rand.New(rand.NewPCG(1, 2))
	codes := []string{CodeRateLimit, CodeTimeout, "X"}
	for range 1000 {
		p := DefaultRetryPolicy()
		if r.IntN(2) == 0 {
			p.Mode = ModeAlways
		}
		p.InitialDelayMs = float64(r.IntN(100000)) / float64(1+r.IntN(1000))
		p.MaxDelayMs = r.Float64() * 1e9
		p.JitterRatio = r.Float64()
		p.MaxRetries = r.IntN(100) - 1
		p.RetryableCodes = codes[:r.IntN(len(codes)+1)]
		require.Equal(t, formula(p), p.PolicyKey())
	}
}
