package faults

import (
	"cmp"
	"math/rand"
	"slices"
	"strconv"
	"testing"
)

// byTime orders actions as slices.SortStableFunc does, ties among many actions at the same instant
// included.
func TestByTimeIsStableSort(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, spread := range []int64{1, 10, 60_000} {
		for _, n := range []int{0, 1, 2, 12, 40} {
			actions := make([]Action, n)
			for i := range actions {
				actions[i] = Action{AtMs: rng.Int63n(spread), Text: strconv.Itoa(i)}
			}
			want := slices.Clone(actions)
			slices.SortStableFunc(want, func(a, b Action) int { return cmp.Compare(a.AtMs, b.AtMs) })
			if got := byTime(actions); !slices.Equal(got, want) {
				t.Errorf("%d actions within %d ms: byTime is not the stable sort", n, spread)
			}
		}
	}
}
