package refundsim_test

import (
	"testing"

	"example.com/refundagent/refundsim"
	"github.com/turnsim/turnsim/sim"
)

// TestRefundAgent runs the refund agent through a thousand seeded worlds of faults, each aimed
// at a cancel while its refund tool runs: every turnsim property and the agent's own must hold.
func TestRefundAgent(t *testing.T) {
	sim.Check(t, sim.CheckOptions{Agent: refundsim.Agent()})
}
