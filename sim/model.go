package sim

import (
	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
)

// PlanProvider returns the simulator's provider model on its own: the provider a schedule's world
// talks to, serving plan's answers in request order until plan.HorizonMs (measured from this call
// on rt's clock), then clean answers. Create it inside a task of rt when rt is a scheduler.
//
// It exists so that the model can be checked against the real adapters over HTTP
// (sim/wire/providerdiff) from a package of its own: sim's test binary, built again for every fuzz
// target and for the race detector, then does not link the provider SDKs.
func PlanProvider(rt harness.Runtime, plan faults.Plan) harness.Provider {
	return &planProvider{runtime: rt, tracer: newTracer(rt), plan: &plan}
}

// PlanTools returns the simulator's tools (faults.ParallelTools and faults.ExclusiveTools), each
// playing the plan's Call carried in its arguments, as a schedule's world registers them. It
// exists for the same reason as PlanProvider: to run the model's agent outside this package.
func PlanTools(rt harness.Runtime) []harness.Tool {
	return planTools(rt, newTracer(rt))
}
