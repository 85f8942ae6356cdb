package weathersim_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"example.com/weatheragent/weathersim"
	"github.com/turnsim/turnsim/sim"
)

// TestWeatherAgent runs the weather agent through a thousand seeded worlds of faults: every
// turnsim property and the agent's own must hold on each.
func TestWeatherAgent(t *testing.T) {
	sim.Check(t, sim.CheckOptions{Seeds: 1000, Agent: weathersim.Agent()})
	assert.Positive(t, weathersim.Requests.Load(), "the meter sat between the agent and the simulated provider")
}
