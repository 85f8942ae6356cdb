package sim

import (
	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/internal/faultserver"
)

// ServedAnswers is a schedule's provider plan as a server plays it to a real agent (simrun
// serve -seed): each answer in its wire form (faultserver.FromPlan), and, for an agent with
// tools of its own, each planned call renamed onto them as the world renames it, with arguments
// from the agent's Arguments (the seed's arguments stream). For turnsim's own agent the calls
// keep their names and carry turnsim's envelope, which its simulated tools read.
func ServedAnswers(schedule Schedule, agent Agent) []faultserver.Step {
	steps := faultserver.FromPlan(&schedule.Plan)
	u := newUserTools(agent, harness.NewProductionRuntime(nil), schedule.Seed)
	if u == nil {
		return steps
	}
	for i := range steps {
		step := &steps[i]
		if len(step.Calls) == 0 {
			continue
		}
		calls := make([]faults.Call, len(step.Calls))
		step.Arguments = make([]string, len(step.Calls))
		for j, c := range step.Calls {
			c.Name = u.rename(c.Name)
			if u.known(c.Name) {
				step.Arguments[j] = u.input(c.Name)
			}
			calls[j] = c
		}
		step.Calls = calls
	}
	return steps
}
