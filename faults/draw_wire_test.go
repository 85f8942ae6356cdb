package faults

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// The wire's faults are the catalogue's last ones, and the swarm never draws them.
func TestWireFaultsComeLast(t *testing.T) {
	for i, f := range Catalogue() {
		assert.Equal(t, i >= swarmFaults, f.Group == GroupWire, f.Name)
	}
	for j, f := range wireShapes {
		assert.Equal(t, swarmFaults+j, cataloguePosition(f), "wireShapes is the wire's faults in catalogue order")
	}
	rates := swarmRates{}
	drawSwarm(NewRand(1), nil, &rates)
	for i := swarmFaults; i < faultCount; i++ {
		assert.False(t, rates.on[i], catalogue[i].Name)
	}
}

// Every wire draw leaves a valid plan; only wireable answers get a wire form, and every wire
// fault an answer is shaped by is in the wire's swarm, which holds only allowed wire faults.
func TestDrawnWiresAreValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Int64().Draw(t, "seed")
		allowed := rapid.SliceOfDistinct(rapid.SampledFrom(Names()), func(s string) string { return s }).Draw(t, "allowed")
		if len(allowed) == 0 {
			allowed = nil
		}
		_, plan := DrawSchedule(seed, allowed)
		before := slices.Clone(plan.Answers)
		swarm := DrawWire(seed, &plan, allowed)
		if err := plan.Validate(); err != nil {
			t.Fatalf("the plan with its wire is invalid: %v", err)
		}
		for name := range swarm {
			f, _ := Lookup(name)
			if f.Group != GroupWire || (allowed != nil && !slices.Contains(allowed, name)) {
				t.Fatalf("the wire's swarm holds %s (allowed %v)", name, allowed)
			}
		}
		for i, a := range plan.Answers {
			if a.Wire == nil {
				if a.Fault != before[i].Fault {
					t.Fatalf("answer %d changed without going on the wire", i)
				}
				continue
			}
			if swarm == nil || !wireable(&before[i]) {
				t.Fatalf("answer %d went on the wire (swarm %v, wireable %v)", i, swarm, wireable(&before[i]))
			}
			if f, _ := Lookup(a.Fault); f.Group == GroupWire && swarm[a.Fault] == 0 {
				t.Fatalf("answer %d is shaped by %s, which the wire's swarm did not switch on", i, a.Fault)
			}
		}
	})
}

// With no wire fault allowed, nothing goes on the wire; with one named, every seed draws a wire
// of that fault alone; with the whole catalogue, about WireShare of the seeds do.
func TestWireShare(t *testing.T) {
	wired := 0
	const seeds = 4000
	for seed := int64(1); seed <= seeds; seed++ {
		_, plan := DrawSchedule(seed, nil)
		if DrawWire(seed, &plan, nil) != nil {
			wired++
		}
		_, plan = DrawSchedule(seed, []string{RateLimit})
		require.Nil(t, DrawWire(seed, &plan, []string{RateLimit}))
		_, plan = DrawSchedule(seed, []string{RateLimit, WireStall})
		swarm := DrawWire(seed, &plan, []string{RateLimit, WireStall})
		require.Len(t, swarm, 1)
		require.Contains(t, swarm, WireStall)
	}
	assert.InDelta(t, WireShare, float64(wired)/seeds, 0.02)
}
