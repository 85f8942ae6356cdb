package sim

import (
	"reflect"
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

// newRunSchedule is NewSchedule without the swarm, and a run of it is the run of NewSchedule's:
// the same plan and strategy, the same log, violations and faults struck, the run reading nothing
// of the swarm.
func TestRunScheduleIsNewScheduleWithoutSwarm(t *testing.T) {
	for seed := range int64(100) {
		for _, allowed := range [][]string{nil, {faults.Crash, faults.ToolCalls}} {
			full, run := NewSchedule(seed, allowed), newRunSchedule(seed, allowed)
			if run.Swarm != nil {
				t.Fatalf("seed %d: newRunSchedule made a swarm", seed)
			}
			run.Swarm = full.Swarm
			if !reflect.DeepEqual(run, full) {
				t.Fatalf("seed %d, allowed %v: newRunSchedule is not NewSchedule without its swarm", seed, allowed)
			}
			if seed >= 20 {
				continue
			}
			run.Swarm = nil
			a, b := RunSchedule(full), RunSchedule(run)
			if a.Digest != b.Digest || !reflect.DeepEqual(a.Violations, b.Violations) || !reflect.DeepEqual(a.Exercised, b.Exercised) {
				t.Fatalf("seed %d, allowed %v: the run without the swarm differs", seed, allowed)
			}
		}
	}
}
