package sim

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
)

// clamping is the seed's policy, except that it never waits a provider's Retry-After longer than
// a quarter of its cap, while stating, as the seed does, that it waits one up to its cap exactly.
type clamping struct{ harness.SeedStrategy }

func (c clamping) Decide(ctx harness.RetryContext) harness.RetryDecision {
	d := c.SeedStrategy.Decide(ctx)
	if !d.GiveUp && ctx.Failure.HasRetryAfter() {
		d.DelayMs = math.Min(d.DelayMs, c.Policy.MaxDelayMs/4)
	}
	return d
}

// oneSided is the seed's policy whose jitter only ever shortens the delay, while it states the
// seed's window.
type oneSided struct{ harness.SeedStrategy }

func (o oneSided) Decide(ctx harness.RetryContext) harness.RetryDecision {
	d := o.SeedStrategy.Decide(ctx)
	if !d.GiveUp && !(ctx.Failure.HasRetryAfter() && ctx.Failure.ProviderRetryAfterMs <= o.Policy.MaxDelayMs) {
		w := o.DelayWindow(ctx.Retry, ctx.EarlierDelaysMs)
		d.DelayMs = math.Round(w.HighMs - (w.HighMs-w.LowMs)/2*(1+ctx.Random())) // the lower half only
	}
	return d
}

// firstSeedBreaking runs seeds until one breaks property with the strategy, and returns it (0:
// none did within limit).
func firstSeedBreaking(t *testing.T, property string, limit int64, allowed []string, strategy func() harness.RetryStrategy) int64 {
	t.Helper()
	for seed := int64(1); seed <= limit; seed++ {
		for _, v := range RunScheduleWith(NewSchedule(seed, allowed), strategy).Violations {
			if v.Property == property {
				t.Logf("seed %d: %s", seed, v)
				return seed
			}
		}
	}
	return 0
}

// A user's strategy that clamps a Retry-After it was to wait exactly is caught, as is one that
// jitters to one side of the window it states: the properties judge every strategy by what it
// says of itself, not only the seed's policy.
func TestAUserStrategyIsJudgedByItsStatements(t *testing.T) {
	policy := harness.DefaultRetryPolicy()
	policy.Mode, policy.MaxRetries = harness.ModeAlways, 0
	clamped := firstSeedBreaking(t, "retry-after-exact", 300, []string{faults.RateLimitAfterBelow, faults.RateLimitAfterEqual},
		func() harness.RetryStrategy { return clamping{harness.SeedStrategy{Policy: policy}} })
	assert.NotZero(t, clamped, "a clamped Retry-After is never reported in 300 seeds")
	shortened := firstSeedBreaking(t, "delay-exact", 300, []string{faults.Server, faults.RateLimit},
		func() harness.RetryStrategy { return oneSided{harness.SeedStrategy{Policy: policy}} })
	assert.NotZero(t, shortened, "one-sided jitter is never reported in 300 seeds")

	honest := firstSeedBreaking(t, "delay-exact", 100, nil, func() harness.RetryStrategy { return harness.SeedStrategy{Policy: policy} })
	require.Zero(t, honest, "the seed's own strategy keeps its statements")
}
