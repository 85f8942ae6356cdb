package harness

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The shared default strategy is DefaultRetryPolicy's: the same key (spelled out once), mode,
// budget, cap and decisions; and an agent built without a policy or a strategy uses it.
func TestDefaultStrategyIsTheDefaultPolicys(t *testing.T) {
	shared, fresh := defaultStrategy(), DefaultRetryPolicy().Strategy()
	assert.Equal(t, fresh.Key(), shared.Key())
	assert.Equal(t, "normal/initial=500/max=10000/jitter=0.1/retries=2", shared.Key())
	assert.Equal(t, fresh.Mode(), shared.Mode())
	assert.Equal(t, fresh.Budget(), shared.Budget())
	assert.Equal(t, fresh.(SeedStrategy).CapMs(), shared.(SeedStrategy).CapMs())
	draws := []float64{0, 0.25, 0.5, 0.999}
	for _, code := range []string{CodeRateLimit, CodeTimeout, CodeContextWindowExceeded, CodeUnknown} {
		for retry := 1; retry <= 3; retry++ {
			for _, draw := range draws {
				c := RetryContext{Failure: Failure{Code: code, Message: "m"}, Retry: retry, Random: func() float64 { return draw }}
				assert.Equal(t, fresh.Decide(c), shared.Decide(c), "%s retry %d draw %v", code, retry, draw)
			}
		}
	}
	a, err := New(Config{Provider: &nilThenText{}})
	require.NoError(t, err)
	assert.Equal(t, shared, a.retryPlugin.strategy)
	assert.Equal(t, fresh.Key(), a.retryPlugin.policyKey)
}
