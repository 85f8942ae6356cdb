// Package unsafepolicy is a deliberately unsafe retry strategy family for tests: it claims a cap
// but forgets it from the fourth retry on, so the tests of policy fuzzing (sim and simrun
// fuzz-policy) can prove that fuzzing catches a policy breaking its own promise and shrinks it to
// minimal parameters. No production code registers it.
package unsafepolicy

import (
	"fmt"
	"math"

	"pgregory.net/rapid"

	"github.com/turnsim/turnsim/harness"
)

// Name is the family's name, as fuzz-policy -policies takes it.
const Name = "planted-uncapped"

// Uncapped is exponential backoff that caps only its first three delays.
type Uncapped struct{ BaseMs, MaxMs float64 }

// Draw draws an Uncapped strategy: a policy family's Draw.
func Draw(t *rapid.T) (func() harness.RetryStrategy, string) {
	s := Uncapped{BaseMs: float64(rapid.IntRange(1, 1000).Draw(t, "baseMs")), MaxMs: float64(rapid.IntRange(1000, 30000).Draw(t, "capMs"))}
	return func() harness.RetryStrategy { return s }, s.Key()
}

// Key names the strategy and its parameters.
func (u Uncapped) Key() string {
	return fmt.Sprintf("planted-uncapped/base=%g/cap=%g", u.BaseMs, u.MaxMs)
}

// Mode is always mode: it retries until it succeeds.
func (u Uncapped) Mode() harness.Mode { return harness.ModeAlways }

// Budget is unused in always mode.
func (u Uncapped) Budget() int { return 0 }

// CapMs is the cap it claims.
func (u Uncapped) CapMs() float64 { return u.MaxMs }

// Decide doubles the delay each retry, capping only the first three: the defect.
func (u Uncapped) Decide(c harness.RetryContext) harness.RetryDecision {
	delay := u.BaseMs * math.Pow(2, float64(c.Retry-1))
	if c.Retry <= 3 {
		delay = math.Min(delay, u.MaxMs)
	}
	return harness.Wait(delay)
}

// RetryAfter says, truly, that it never consults a provider's hint: its one defect is the cap.
func (u Uncapped) RetryAfter() harness.RetryAfterUse {
	return harness.RetryAfterUse{Within: harness.RetryAfterIgnored}
}
