package sim

import (
	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/internal/faultserver"
)

// ServedAnswers is a schedule's provider plan as a server plays it to a real agent (simrun
// serve -seed): each answer in its wire form (faultserver.FromPlan), and, for an agent with
// tools of its own, each planned call renamed onto them as the world renames it, with arguments
// from the agent's Arguments (the seed's arguments stream) unless the plan gives its own. For
// turnsim's own agent the calls keep their names, and a call the plan gives no arguments carries
// turnsim's envelope, which its simulated tools read.
func ServedAnswers(schedule Schedule, agent Agent) []faults.Answer {
	answers := faultserver.FromPlan(&schedule.Plan)
	u := newUserTools(agent, harness.NewProductionRuntime(nil), schedule.Seed)
	if u == nil {
		return answers
	}
	for i := range answers {
		a := &answers[i]
		if len(a.Calls) == 0 {
			continue
		}
		calls := make([]faults.Call, len(a.Calls))
		for j, c := range a.Calls {
			c.Name = u.rename(c.Name)
			if c.Arguments == "" && u.known(c.Name) {
				c.Arguments = u.input(c.Name)
			}
			calls[j] = c
		}
		a.Calls = calls
	}
	return answers
}
