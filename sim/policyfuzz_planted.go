//go:build plantedbugs

package sim

import (
	"fmt"
	"math"

	"pgregory.net/rapid"

	"github.com/turnsim/turnsim/harness"
)

// plantedUnsafeFamily is a deliberately unsafe strategy family, compiled only into planted-bug
// builds, that proves policy fuzzing catches a policy breaking its own promises: it claims a
// cap but forgets it from the fourth retry on.
const plantedUnsafeFamily = "planted-uncapped"

func init() {
	extraPolicyFamilies = append(extraPolicyFamilies, func() []PolicyFamily {
		return []PolicyFamily{{Name: plantedUnsafeFamily, Draw: func(t *rapid.T) (func() harness.RetryStrategy, string) {
			s := uncapped{baseMs: float64(rapid.IntRange(1, 1000).Draw(t, "baseMs")), capMs: float64(rapid.IntRange(1000, 30000).Draw(t, "capMs"))}
			return func() harness.RetryStrategy { return s }, s.Key()
		}}}
	})
}

// uncapped is exponential backoff that caps only its first three delays.
type uncapped struct{ baseMs, capMs float64 }

func (u uncapped) Key() string {
	return fmt.Sprintf("planted-uncapped/base=%g/cap=%g", u.baseMs, u.capMs)
}
func (u uncapped) Mode() harness.Mode { return harness.ModeAlways }
func (u uncapped) Budget() int        { return 0 }
func (u uncapped) CapMs() float64     { return u.capMs }
func (u uncapped) Decide(c harness.RetryContext) harness.RetryDecision {
	delay := u.baseMs * math.Pow(2, float64(c.Retry-1))
	if c.Retry <= 3 {
		delay = math.Min(delay, u.capMs)
	}
	return harness.Wait(delay)
}
