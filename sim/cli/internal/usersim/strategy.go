package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"pgregory.net/rapid"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/zoo"
	"github.com/turnsim/turnsim/sim"
)

// supportBackoff is the support agent's retry strategy: the zoo's full jitter between its own
// base and cap, under its own name. Embedding the zoo's strategy keeps what it states of itself
// (its Retry-After use and delay window), which the properties judge it by.
type supportBackoff struct{ zoo.Backoff }

// newSupportBackoff builds the strategy; the zoo refuses a bad base or cap, naming it.
func newSupportBackoff(baseMs, capMs float64) (supportBackoff, error) {
	params := zoo.DefaultBackoffParams()
	params.BaseMs, params.CapMs = baseMs, capMs
	b, err := zoo.NewBackoff(zoo.FormulaFullJitter, params)
	return supportBackoff{b}, err
}

func (s supportBackoff) Key() string {
	p := s.Params()
	return fmt.Sprintf("support-backoff/base=%g/cap=%g", p.BaseMs, p.CapMs)
}

// supportParams are the family's parameters, as -params gives them.
type supportParams struct {
	BaseMs float64 `json:"baseMs"`
	CapMs  float64 `json:"capMs"`
}

// supportBackoffFamily is registered with sim.RegisterPolicyFamily, so that fuzz-policy fuzzes it
// and policy compares it.
var supportBackoffFamily = sim.PolicyFamily{
	Name: "support-backoff",
	Draw: func(t *rapid.T) (func() harness.RetryStrategy, string) {
		base := float64(rapid.IntRange(1, 1000).Draw(t, "baseMs"))
		cap := base + float64(rapid.IntRange(0, 30000).Draw(t, "extraCapMs"))
		s, err := newSupportBackoff(base, cap)
		if err != nil {
			panic(fmt.Sprintf("usersim: invariant: full jitter refused base %g, cap %g: %v", base, cap, err))
		}
		return func() harness.RetryStrategy { return s }, fmt.Sprintf("base=%g cap=%g", base, cap)
	},
	New: func(raw json.RawMessage) (func() harness.RetryStrategy, string, error) {
		p := supportParams{BaseMs: 100, CapMs: 8000}
		if raw != nil {
			decoder := json.NewDecoder(bytes.NewReader(raw))
			decoder.DisallowUnknownFields()
			if err := decoder.Decode(&p); err != nil {
				return nil, "", fmt.Errorf("support-backoff: %v", err)
			}
		}
		if !(p.BaseMs >= 1 && p.CapMs >= p.BaseMs && p.CapMs <= 600_000) {
			return nil, "", fmt.Errorf("support-backoff: baseMs %g and capMs %g: need 1 ≤ baseMs ≤ capMs ≤ 600000", p.BaseMs, p.CapMs)
		}
		s, err := newSupportBackoff(p.BaseMs, p.CapMs)
		if err != nil {
			return nil, "", fmt.Errorf("support-backoff: %v", err)
		}
		return func() harness.RetryStrategy { return s }, s.Key(), nil
	},
}
