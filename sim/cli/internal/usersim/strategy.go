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

// supportBackoff is the support agent's retry strategy: full jitter between its own base and
// cap, under its own name.
type supportBackoff struct {
	harness.RetryStrategy
	baseMs, capMs float64
}

func newSupportBackoff(baseMs, capMs float64) harness.RetryStrategy {
	params, _ := json.Marshal(map[string]float64{"baseMs": baseMs, "capMs": capMs})
	inner, err := zoo.New("full-jitter", params)
	if err != nil {
		panic(fmt.Sprintf("usersim: invariant: full-jitter refused base %g, cap %g: %v", baseMs, capMs, err))
	}
	return supportBackoff{RetryStrategy: inner, baseMs: baseMs, capMs: capMs}
}

func (s supportBackoff) Key() string {
	return fmt.Sprintf("support-backoff/base=%g/cap=%g", s.baseMs, s.capMs)
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
		return func() harness.RetryStrategy { return newSupportBackoff(base, cap) }, fmt.Sprintf("base=%g cap=%g", base, cap)
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
		s := newSupportBackoff(p.BaseMs, p.CapMs)
		return func() harness.RetryStrategy { return newSupportBackoff(p.BaseMs, p.CapMs) }, s.Key(), nil
	},
}
