package faults

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"testing"
)

// drawnDigest is the SHA-256 of the JSON of the swarms and plans of seeds 0 to 1999, drawn as a
// schedule draws them: a change to the drawing code that moves one draw, or changes a plan's
// bytes, changes it. Tuning the drawer must leave it as it is; a new fault changes it (call-id-reuse
// did: the hash was taken from the branch that added it, before the tuning merged; so did
// provider-nil-stream, tool-failure, the zoo strategies a plan names, the aimed faults and the
// dispose fault's Cancel with cause disposed, slow-compaction's failing decisions, fractional
// Retry-After hints, maintenance).
const drawnDigest = "04e58fa1ccc8d9ba4aa7936f45170a06e99f3e92c4a9e863c393d673ffcc7013"

func TestDrawnPlansAreUnchanged(t *testing.T) {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for seed := range int64(2000) {
		rng := NewRand(seed)
		swarm := DrawSwarm(rng, nil)
		if err := enc.Encode(swarm); err != nil {
			t.Fatal(err)
		}
		if err := enc.Encode(DrawPlan(rng, swarm)); err != nil {
			t.Fatal(err)
		}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != drawnDigest {
		t.Fatalf("the plans of seeds 0 to 1999 changed: digest %s, want %s", got, drawnDigest)
	}
}

// BenchmarkDraw measures drawing one default-mix schedule's swarm and plan, the share of
// sim.NewSchedule this package owns.
func BenchmarkDraw(b *testing.B) {
	b.ReportAllocs()
	for i := range b.N {
		DrawSchedule(int64(i), nil)
	}
}

// faultIndex knows every fault of the catalogue, at its position.
func TestFaultIndexIsCataloguePosition(t *testing.T) {
	for i, f := range catalogue {
		if got := faultIndex(f.Name); got != i {
			t.Errorf("faultIndex(%q) = %d, its catalogue position is %d", f.Name, got, i)
		}
	}
	if got := faultIndex("gremlins"); got != -1 {
		t.Errorf("faultIndex(\"gremlins\") = %d, want -1", got)
	}
}

// DrawSchedule draws what DrawSwarm and then DrawPlan draw from NewRand of its seed, to the last
// value taken from the stream, for the whole catalogue and for a restricted list.
func TestDrawScheduleIsDrawSwarmThenDrawPlan(t *testing.T) {
	for _, allowed := range [][]string{nil, {ToolCalls, CallIDReuse, Crash, "gremlins"}, {PowerLoss}} {
		for seed := range int64(300) {
			swarm, plan := DrawSchedule(seed, allowed)
			theirs := NewRand(seed)
			wantSwarm := DrawSwarm(theirs, allowed)
			wantPlan := DrawPlan(theirs, wantSwarm)
			if !reflect.DeepEqual(swarm, wantSwarm) || !reflect.DeepEqual(plan, wantPlan) {
				t.Fatalf("seed %d, allowed %v: DrawSchedule drew another swarm or plan", seed, allowed)
			}
		}
	}
}
