package zoo

import "github.com/turnsim/turnsim/harness"

// SeedDefault is the seed's own llm-retry policy, harness.DefaultRetryPolicy(), as a strategy:
// normal mode, 500 ms doubling to a 10 s cap, ±10 % jitter, 2 retries, a provider Retry-After at
// or below the cap used exactly and one above it given up on.
func SeedDefault() harness.RetryStrategy { return harness.DefaultRetryPolicy().Strategy() }

// SeedAlwaysPolicy is the seed's default policy in always mode: no budget, the same delays.
func SeedAlwaysPolicy() harness.RetryPolicy {
	p := harness.DefaultRetryPolicy()
	p.Mode, p.MaxRetries = harness.ModeAlways, 0
	return p
}

// SeedAlways is SeedAlwaysPolicy as a strategy.
func SeedAlways() harness.RetryStrategy { return SeedAlwaysPolicy().Strategy() }
