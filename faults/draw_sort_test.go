package faults

import (
	"cmp"
	"math/rand"
	"slices"
	"strconv"
	"testing"
)

// sortedByTime orders actions as slices.SortStableFunc does, with few of them (its insertion
// sort) and with more than its buffer holds, many at the same instant.
func TestSortedByTimeIsStableSort(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, n := range []int{0, 1, 2, 12, actionsBuffered, actionsBuffered + 1, 200} {
		actions := make([]Action, n)
		for i := range actions {
			actions[i] = Action{AtMs: rng.Int63n(10), Text: strconv.Itoa(i)}
		}
		want := slices.Clone(actions)
		slices.SortStableFunc(want, func(a, b Action) int { return cmp.Compare(a.AtMs, b.AtMs) })
		if got := sortedByTime(actions); !slices.Equal(got, want) {
			t.Errorf("%d actions: sortedByTime is not the stable sort", n)
		}
	}
}
