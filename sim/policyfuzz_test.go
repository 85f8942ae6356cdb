package sim

import (
	"testing"

	"pgregory.net/rapid"
)

// Every policy family fuzzing knows keeps the safety properties on drawn schedules.
func TestPolicyFamiliesAreSafe(t *testing.T) {
	for _, family := range PolicyFamilies() {
		t.Run(family.Name, rapid.MakeCheck(func(t *rapid.T) { CheckPolicy(t, family, nil) }))
	}
}

// FuzzPolicies fuzzes the seed policy's parameters and schedules with coverage guidance:
// go test -run X -fuzz FuzzPolicies -fuzztime 1m ./sim/
func FuzzPolicies(f *testing.F) {
	family, _ := PolicyFamilyByName("seed-default")
	f.Fuzz(rapid.MakeFuzz(func(t *rapid.T) { CheckPolicy(t, family, nil) }))
}
