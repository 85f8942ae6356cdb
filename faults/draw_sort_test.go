package faults

import (
	"cmp"
	"math/rand"
	"slices"
	"strconv"
	"testing"
)

// sortedByTime orders actions as slices.SortStableFunc does: with few of them (its insertion
// sort of keys) and with more than its buffer holds, many at the same instant, and at times no
// key holds (before 0, past keyAtMsMax).
func TestSortedByTimeIsStableSort(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, times := range []struct{ low, high int64 }{{0, 10}, {0, 60_000}, {-5, 5}, {keyAtMsMax - 5, keyAtMsMax + 5}} {
		for _, n := range []int{0, 1, 2, 12, actionsBuffered, actionsBuffered + 1, 200} {
			actions := make([]Action, n)
			for i := range actions {
				actions[i] = Action{AtMs: times.low + rng.Int63n(times.high-times.low), Text: strconv.Itoa(i)}
			}
			want := slices.Clone(actions)
			slices.SortStableFunc(want, func(a, b Action) int { return cmp.Compare(a.AtMs, b.AtMs) })
			if got := sortedByTime(actions); !slices.Equal(got, want) {
				t.Errorf("%d actions in [%d, %d): sortedByTime is not the stable sort", n, times.low, times.high)
			}
		}
	}
}
