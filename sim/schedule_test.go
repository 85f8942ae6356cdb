package sim

import (
	"testing"

	"github.com/turnsim/turnsim/faults"
)

// NewSchedule seeds the plan's source anew for the strategy: the same strategy and depth as a
// source of the strategy stream's own, as schedules drew them before.
func TestScheduleStrategyIsDrawnFromItsOwnStream(t *testing.T) {
	for seed := range int64(500) {
		s := NewSchedule(seed, nil)
		own := faults.NewRand(deriveSeed(seed, streamStrategy))
		strategy, depth := StrategyUniform, 0
		if own.Float64() < pctShare {
			strategy, depth = StrategyPCT, 1+own.Intn(pctDepthMax)
		}
		if s.Strategy != strategy || s.Depth != depth {
			t.Fatalf("seed %d: strategy %s depth %d, its own stream draws %s depth %d", seed, s.Strategy, s.Depth, strategy, depth)
		}
	}
}
