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
	r.failsUsed, r.callsUsed = len(r.fails), len(r.calls)
	return r
}

// A room planRooms lends again still holds what the plan drawn in it before gathered: a drawer
// never reads it. A plan drawn in a room full of junk is the plan drawn in a new room, and holds
// none of either room; and plans drawn again, in reverse order, after their rooms were lent to
// others, are the plans drawn the first time.
func TestPlanRoomsLeakNothing(t *testing.T) {
	want := make(map[int64]Plan)
	for seed := range int64(300) {
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
		for i, room := range rooms {
			*room = *junkRoom() // the room lent again, and filled by another plan
			if !reflect.DeepEqual(plans[i], want[seed]) {
				t.Fatalf("seed %d: the plan changed with the room it was drawn in", seed)
			}
		}
	}
	for seed := int64(299); seed >= 0; seed-- {
		if _, got := DrawScheduleSeeded(seed, nil); !reflect.DeepEqual(got, want[seed]) {
			t.Fatalf("seed %d: the plan drawn again is not the plan drawn first", seed)
		}
	}
}
