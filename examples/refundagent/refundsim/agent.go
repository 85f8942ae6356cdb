// Package refundsim puts the refund agent into turnsim's simulated world: its tool, the
// arguments the simulated model calls it with, the payment service that outlives the agent's
// crashes, and the agent's own property, that no order is ever refunded twice. The tests use it
// through sim.Check, cmd/refundsim through simrun's library.
package refundsim

import (
	"encoding/json"
	"math/rand"
	"strings"

	"example.com/refundagent/refund"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim"
)

// orders are what the simulated model asks refunds for: two, so that a later call often asks
// again for an order an earlier one refunded.
var orders = []string{"A-1001", "A-1002"}

// Aim is the moment the agent's narrow bug needs: a cancel while the refund tool runs, after the
// payment service applied the refund and before its answer came back, and then the same request
// again (the aim has the model re-send the call a cancel cut short, and the user ask again). A
// cancel at a random time lands there once in thousands of seeds; aimed, within the first few.
const Aim = "cancel-during-tool:issue_refund"

// Agent is the refund agent as the simulation runs it (its three tools: the simulated model's
// calls go to lookup_order and notify_customer, the parallel ones, seven times in ten, and to
// issue_refund otherwise), aimed at a cancel while its refund tool runs.
// The payment service is the seed's (PerSeed): it outlives every crash of the agent, as the
// remote service does, and the property reads it. The ledger is the agent's own memory: each
// incarnation starts with an empty one.
func Agent() sim.Agent {
	return sim.Agent{
		Aim: Aim,
		PerSeed: func() sim.Agent {
			payments := refund.NewPayments()
			return sim.Agent{
				Tools: func(rt harness.Runtime) []harness.Tool {
					return []harness.Tool{refund.LookupTool(rt), refund.Tool(rt, payments, refund.NewLedger()), refund.NotifyTool(rt)}
				},
				Arguments: func(tool string, r *rand.Rand) string {
					args, _ := json.Marshal(refund.Args{Order: orders[r.Intn(len(orders))], Cents: 100 * (1 + r.Intn(50))})
					return string(args)
				},
				Properties: []properties.Property{NeverRefundedTwice(payments)},
			}
		},
	}
}

// NeverRefundedTwice is the refund agent's own promise, judged by the payment service's record
// (the customer's truth, not the agent's log): whatever was cancelled, crashed and asked again,
// no order was refunded twice.
func NeverRefundedTwice(payments *refund.Payments) properties.Property {
	return properties.Define("never-refunded-twice",
		"no order is refunded twice by the payment service, across cancels, crashes and re-sent requests",
		func(r *properties.Run, report *properties.Reporter) {
			if twice := payments.RefundedTwice(); len(twice) > 0 {
				report.Errorf(0, -1, "the payment service refunded %s", strings.Join(twice, ", "))
			}
		})
}
