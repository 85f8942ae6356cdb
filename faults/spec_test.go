package faults

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
)

// Every drawn plan spells out its whole policy, so the properties judge by the plan's values; about
// one in four builds the agent with the harness's defaults, recording the spec's.
func TestDrawnPlansStateEveryPolicyField(t *testing.T) {
	const plans = 2000
	defaults, custom := 0, 0
	for seed := range int64(plans) {
		rng := rand.New(rand.NewSource(seed))
		p := DrawPlan(rng, DrawSwarm(rng, nil))
		require.NoError(t, p.Validate(), "seed %d", seed)
		assert.NotEmpty(t, p.Policy.RetryableCodes, "seed %d", seed)
		if !slices.Equal(SpecRetryPolicy().RetryableCodes, p.Policy.RetryableCodes) {
			custom++
		}
		assert.NotZero(t, p.Policy.InitialDelayMs, "seed %d", seed)
		assert.NotZero(t, p.Policy.MaxDelayMs, "seed %d", seed)
		if p.HarnessDefaults {
			defaults++
			assert.True(t, samePolicy(SpecRetryPolicy(), p.Policy), "seed %d", seed)
			assert.Equal(t, SpecMaxParallelToolCalls, p.MaxParallelToolCalls, "seed %d", seed)
		}
	}
	assert.InDelta(t, plans/4, defaults, plans/20)
	assert.InDelta(t, plans*3/4/8, custom, plans/40, "one non-default plan in eight changes the codes")
}

// A plan with harnessDefaults must record exactly the spec's defaults: anything else would judge
// the harness's defaults by the wrong values.
func TestHarnessDefaultsPlanRecordsTheSpec(t *testing.T) {
	p := Plan{Policy: SpecRetryPolicy(), MaxParallelToolCalls: SpecMaxParallelToolCalls, HarnessDefaults: true, HorizonMs: 1000, Actions: []Action{{Kind: ActFollowup}}}
	require.NoError(t, p.Validate())
	for name, edit := range map[string]func(p *Plan){
		"retries": func(p *Plan) { p.Policy.MaxRetries = 3 },
		"codes":   func(p *Plan) { p.Policy.RetryableCodes = p.Policy.RetryableCodes[1:] },
		"pool":    func(p *Plan) { p.MaxParallelToolCalls = 4 },
		"mode":    func(p *Plan) { p.Policy.Mode, p.Policy.MaxRetries = harness.ModeAlways, 0 },
	} {
		q := p
		q.Policy.RetryableCodes = append([]string(nil), p.Policy.RetryableCodes...)
		edit(&q)
		assert.ErrorContains(t, q.Validate(), "harnessDefaults", name)
	}
}

// Today the harness's defaults agree with the spec; when they drift, the harnessDefaults plans
// make the properties report it (the planted bug default-codes-drift proves they do).
func TestHarnessDefaultsAgreeWithTheSpecToday(t *testing.T) {
	assert.Equal(t, SpecRetryPolicy(), harness.DefaultRetryPolicy())
	assert.Equal(t, SpecMaxParallelToolCalls, harness.DefaultMaxParallelToolCalls)
}
