package faults

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
)

// A call's Wrap wraps a ToolFailure only: it is refused on any other outcome, too deep, or with
// a layer that is not errorf or join, naming the call.
func TestToolFailureWrapIsValidated(t *testing.T) {
	plan := func(c Call) Plan {
		return Plan{Policy: harness.DefaultRetryPolicy(), HorizonMs: 1000, Answers: []Answer{{Finish: harness.FinishToolCalls, Calls: []Call{c}}}}
	}
	require.NoError(t, plan(Call{Name: "read", Outcome: OutcomeFailure}).Validate())
	require.NoError(t, plan(Call{Name: "read", Outcome: OutcomeFailure, Wrap: []string{WrapErrorf, WrapJoin}}).Validate())
	for name, c := range map[string]struct {
		call Call
		says string
	}{
		"on an error":   {Call{Name: "read", Outcome: OutcomeError, Wrap: []string{WrapErrorf}}, `calls[0]: wrap is for the failure outcome only, not "error"`},
		"too deep":      {Call{Name: "read", Outcome: OutcomeFailure, Wrap: []string{WrapJoin, WrapJoin, WrapJoin, WrapJoin, WrapJoin}}, "calls[0]: wrap has 5 layers"},
		"unknown layer": {Call{Name: "read", Outcome: OutcomeFailure, Wrap: []string{"panic"}}, `calls[0]: wrap[0] "panic" is not errorf or join`},
	} {
		t.Run(name, func(t *testing.T) {
			err := plan(c.call).Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.says)
		})
	}
}

// The drawer shapes tool-failure calls: the failure outcome, bare or inside one or two layers.
func TestToolFailureIsDrawn(t *testing.T) {
	layers := map[int]int{}
	for seed := range int64(300) {
		plan := DrawPlan(NewRand(seed), Swarm{ToolCalls: 0.5, ToolFailure: 0.5})
		for _, a := range plan.Answers {
			for _, c := range a.Calls {
				if c.Outcome == OutcomeFailure {
					assert.Contains(t, c.Faults, ToolFailure)
					layers[len(c.Wrap)]++
				}
			}
		}
	}
	for n := range 3 {
		assert.Positive(t, layers[n], "no ToolFailure drawn with %d layers", n)
	}
}
