package sim

import (
	"fmt"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/zoo"
	"github.com/turnsim/turnsim/properties"
)

// strategyInfo is what the properties judge the user's strategy by (nil: the plan's policy,
// which they judge by the spec): what it states of itself.
func strategyInfo(s harness.RetryStrategy) *properties.StrategyInfo {
	if s == nil {
		return nil
	}
	info := &properties.StrategyInfo{Key: s.Key(), Mode: s.Mode(), Budget: s.Budget(), CapMs: s.CapMs()}
	// Only what the strategy states itself: for one that states nothing, the properties apply
	// their own strictest reading, not the harness's default (harness.RetryAfterOf).
	if stater, ok := s.(harness.RetryAfterStater); ok {
		info.RetryAfter = stater.RetryAfter()
	}
	if stater, ok := s.(harness.DelayWindowStater); ok {
		info.Window = stater.DelayWindow
	}
	return info
}

// zooStrategy makes the zoo strategy a plan names, at its published parameters, fresh (its
// buckets and quotas full) for each incarnation.
func zooStrategy(name string) harness.RetryStrategy {
	s, err := zoo.New(name, nil)
	if err != nil {
		panic(fmt.Sprintf("sim: invariant: a validated plan names the zoo strategy %q, which does not build: %v", name, err))
	}
	return s
}
