package faults

import (
	"cmp"
	"math/rand"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/turnsim/turnsim/internal/splitmix"
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

// A room actionRooms lends again still holds the actions of the plan drawn in it before:
// drawActions never reads them. Actions drawn in a room full of junk are the actions drawn in a
// new room, and so are the plans drawn again, in reverse order, after the rooms were lent.
func TestActionRoomsLeakNothing(t *testing.T) {
	junk := new([actionsBuffered]Action)
	for i := range junk {
		junk[i] = Action{AtMs: -1, Kind: "junk", Text: "junk", InAppend: true, Written: "junk", RestartAfterMs: 1, Unsynced: "junk", Cause: "junk", Reason: "junk", KeepInbox: true, Fault: "junk", Concurrent: true, On: "junk", Then: "junk"}
	}
	want := make(map[int64]Plan)
	for seed := range int64(200) {
		_, want[seed] = DrawScheduleSeeded(seed, nil)
		fresh, reused := drawer{rng: source{own: splitmix.New(seed)}}, drawer{rng: source{own: splitmix.New(seed)}}
		drawSwarm(&fresh.rng, nil, &fresh.rates)
		drawSwarm(&reused.rng, nil, &reused.rates)
		room := *junk
		if got, want := reused.drawActions(60_000, &room), fresh.drawActions(60_000, new([actionsBuffered]Action)); !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: the actions drawn in a room of junk are not those drawn in a new room:\n%v\n%v", seed, got, want)
		}
	}
	for seed := int64(199); seed >= 0; seed-- {
		if _, got := DrawScheduleSeeded(seed, nil); !reflect.DeepEqual(got, want[seed]) {
			t.Fatalf("seed %d: the plan drawn again is not the plan drawn first", seed)
		}
	}
}
