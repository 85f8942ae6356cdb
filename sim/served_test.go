package sim_test

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/sim"
)

// Served to a real agent, a seed's calls carry turnsim's envelope for turnsim's own agent, and,
// for a user's agent, go to its tools with arguments from its own generator.
func TestServedAnswersCarryTheAgentsArguments(t *testing.T) {
	var requests atomic.Int64
	seen := 0
	for seed := int64(1); seed <= 40; seed++ {
		schedule := sim.NewSchedule(seed, nil)
		own, theirs := sim.ServedAnswers(schedule, sim.Agent{}), sim.ServedAnswers(schedule, userAgent(&requests))
		for i, step := range theirs {
			assert.Empty(t, own[i].Arguments, "turnsim's own calls carry the envelope the server makes")
			for j, c := range step.Calls {
				seen++
				if c.Name == faults.UnknownTool {
					assert.Empty(t, step.Arguments[j], "a call to no tool gets no generated arguments")
					continue
				}
				assert.Equal(t, "lookup", c.Name)
				assert.Regexp(t, `^\{"Key":"k\d+"\}$`, step.Arguments[j])
			}
		}
	}
	assert.Positive(t, seen)
}
