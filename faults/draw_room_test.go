package faults

import (
	"reflect"
	"testing"

	"github.com/turnsim/turnsim/internal/splitmix"
)

// junkRoom is a room full of values no plan draws, its counts past their ends.
func junkRoom() *planRoom {
	r := new(planRoom)
	for i := range r.actions {
		r.actions[i] = Action{AtMs: -1, Kind: "junk", Text: "junk", InAppend: true, Written: "junk", RestartAfterMs: 1, Unsynced: "junk", Cause: "junk", Reason: "junk", KeepInbox: true, Fault: "junk", Concurrent: true, On: "junk", Then: "junk"}
	}
	for i := range r.fails {
		r.fails[i] = Fail{Code: "junk", Message: "junk", Status: 1, RetryAfterMs: 1, Plain: true, CauseChain: true, Wrap: []string{"junk"}}
	}
	for i := range r.calls {
		r.calls[i] = Call{Name: "junk", LatencyMs: 1, Outcome: "junk", IgnoreCancel: true, Faults: []string{"junk"}}
	}
	r.failsUsed, r.callsUsed, r.callsFull = len(r.fails), len(r.calls), true
	return r
}

// A room planRooms lends again still holds what the plan drawn in it before gathered: a drawer
// never reads it. A plan drawn in a room full of junk is the plan drawn in a new room, and holds
// none of either room; and plans drawn again, in reverse order, after their rooms were lent to
// others, are the plans drawn the first time. Seeds 486, 662, 923 and 1491 draw more calls than
// the room holds.
func TestPlanRoomsLeakNothing(t *testing.T) {
	var seeds []int64
	for seed := range int64(300) {
		seeds = append(seeds, seed)
	}
	seeds = append(seeds, 486, 662, 923, 1491)
	want := make(map[int64]Plan)
	for _, seed := range seeds {
		_, want[seed] = DrawScheduleSeeded(seed, nil)
		plans := make([]Plan, 2)
		rooms := []*planRoom{junkRoom(), new(planRoom)}
		for i, room := range rooms {
			d := drawer{rng: source{own: splitmix.New(seed)}, room: room}
			drawSwarm(&d.rng, nil, &d.rates)
			plans[i] = d.drawPlanIn()
		}
		if !reflect.DeepEqual(plans[0], plans[1]) || !reflect.DeepEqual(plans[0], want[seed]) {
			t.Fatalf("seed %d: the plan drawn in a room of junk is not the plan drawn in a new room", seed)
		}
		if seed >= 300 && !rooms[1].callsFull {
			t.Fatalf("seed %d: its calls fit the room: the test no longer draws more than it holds", seed)
		}
		for i, room := range rooms {
			*room = *junkRoom() // the room lent again, and filled by another plan
			if !reflect.DeepEqual(plans[i], want[seed]) {
				t.Fatalf("seed %d: the plan changed with the room it was drawn in", seed)
			}
		}
	}
	for i := len(seeds) - 1; i >= 0; i-- {
		if _, got := DrawScheduleSeeded(seeds[i], nil); !reflect.DeepEqual(got, want[seeds[i]]) {
			t.Fatalf("seed %d: the plan drawn again is not the plan drawn first", seeds[i])
		}
	}
}
