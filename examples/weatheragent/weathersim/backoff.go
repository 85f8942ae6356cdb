package weathersim

import (
	"bytes"
	"encoding/json"
	"fmt"

	"pgregory.net/rapid"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/zoo"
	"github.com/turnsim/turnsim/sim"
)

// BackoffFamily is the weather agent's retry policy as a family of parameters: equal jitter
// (half the exponential delay fixed, half drawn) between a base and a cap the team tunes. Its
// command registers it (sim.RegisterPolicyFamily), so `weathersim fuzz-policy -policies
// forecast-backoff` fuzzes every base and cap on this agent before one ships, and `weathersim
// policy` compares it with the published strategies.
var BackoffFamily = sim.PolicyFamily{
	Name: "forecast-backoff",
	Draw: func(t *rapid.T) (func() harness.RetryStrategy, string) {
		p := backoffParams{BaseMs: float64(rapid.IntRange(1, 2000).Draw(t, "baseMs"))}
		p.CapMs = p.BaseMs + float64(rapid.IntRange(0, 60000).Draw(t, "extraCapMs"))
		newStrategy, key, err := p.strategy()
		if err != nil {
			panic(fmt.Sprintf("weathersim: invariant: drawn %+v refused: %v", p, err))
		}
		return newStrategy, key
	},
	New: func(raw json.RawMessage) (func() harness.RetryStrategy, string, error) {
		p := backoffParams{BaseMs: 250, CapMs: 8000}
		if raw != nil {
			decoder := json.NewDecoder(bytes.NewReader(raw))
			decoder.DisallowUnknownFields()
			if err := decoder.Decode(&p); err != nil {
				return nil, "", fmt.Errorf("forecast-backoff: %v", err)
			}
		}
		return p.strategy()
	},
}

// backoffParams are the family's parameters, as `policy -params FILE` gives them.
type backoffParams struct {
	BaseMs float64 `json:"baseMs"`
	CapMs  float64 `json:"capMs"`
}

// strategy builds the family's strategy for p: the zoo's equal jitter with the zoo's other
// defaults, which refuses a bad base or cap with an error naming it.
func (p backoffParams) strategy() (func() harness.RetryStrategy, string, error) {
	params := zoo.DefaultBackoffParams()
	params.BaseMs, params.CapMs = p.BaseMs, p.CapMs
	s, err := zoo.NewBackoff(zoo.FormulaEqualJitter, params)
	if err != nil {
		return nil, "", fmt.Errorf("forecast-backoff: %v", err)
	}
	return func() harness.RetryStrategy { return s }, "forecast-backoff/" + s.Key(), nil
}
