package faults

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
)

// A plan names a zoo strategy about one time in ten (never with the harness's defaults), each
// of the zoo's but the seed's own; a hand-written one must name a strategy the zoo has.
func TestPlansNameZooStrategies(t *testing.T) {
	named := map[string]int{}
	for seed := range int64(3000) {
		_, plan := DrawSchedule(seed, nil)
		if plan.RetryStrategy != "" {
			assert.False(t, plan.HarnessDefaults, "seed %d", seed)
			named[plan.RetryStrategy]++
		}
	}
	assert.Len(t, named, len(zooStrategies), "every zoo strategy drawn: %v", named)
	total := 0
	for _, n := range named {
		total += n
	}
	assert.InDelta(t, 0.1*0.75*3000, total, 60, "about one plan in ten of those with their own configuration")

	p := Plan{Policy: harness.DefaultRetryPolicy(), HorizonMs: 1000, RetryStrategy: "sdk"}
	require.NoError(t, p.Validate())
	p.RetryStrategy = "fibonacci"
	assert.ErrorContains(t, p.Validate(), `retryStrategy "fibonacci" is not a strategy of the zoo`)
	p.RetryStrategy, p.HarnessDefaults, p.Policy, p.MaxParallelToolCalls = "sdk", true, SpecRetryPolicy(), SpecMaxParallelToolCalls
	assert.ErrorContains(t, p.Validate(), "harnessDefaults")
}
