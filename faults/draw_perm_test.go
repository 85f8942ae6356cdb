package faults

import (
	"math/rand"
	"testing"
)

// The drawer's perm is rand.Perm: the same permutations from the same draws, so plans do not
// change with it.
func TestPermIsRandPerm(t *testing.T) {
	mine, theirs := rand.New(rand.NewSource(7)), rand.New(rand.NewSource(7))
	d := &drawer{rng: mine}
	for n := range 40 {
		got, want := d.perm(n%20), theirs.Perm(n%20)
		if len(got) != len(want) {
			t.Fatalf("perm(%d): %d elements, rand.Perm %d", n%20, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("perm(%d) = %v, rand.Perm %v", n%20, got, want)
			}
		}
	}
	if mine.Int63() != theirs.Int63() {
		t.Fatal("perm drew a different number of values from rng")
	}
}
