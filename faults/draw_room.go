package faults

import "sync"

// planRoom is where a drawer gathers a plan's actions, its answers' failures and their tool
// calls, before it keeps each kind in one slice of their exact number. Room made on the heap as
// the failures and calls came, for a share of the answers still to draw, was about 220 bytes a
// plan more, and 0.8 allocations; an array of the actions on the stack, 5.9 KB that Go zeroed
// for every plan, about 740 instructions a plan.
//
// planRooms lends rooms again without clearing them: a drawer writes each value whole before it
// reads it, reads no further than it wrote, and points the plan at none of the room before
// giving it back (TestPlanRoomsLeakNothing). A room is made anew when the pool has none at hand
// (after two collections, or on another P than the last): about one a collection with two Ps,
// so it holds what almost every plan needs, 10 KB, not what the largest could (16 KB).
type planRoom struct {
	actions [actionsBuffered]Action
	fails   [answersMax]Fail
	calls   [callsBuffered]Call
	// failsUsed and callsUsed count the failures and calls gathered for the plan being drawn;
	// callsFull says the plan's calls outgrew the room, and its later answers' calls are on the
	// heap (newCalls).
	failsUsed, callsUsed int
	callsFull            bool
}

var planRooms = sync.Pool{New: func() any { return new(planRoom) }}

// Bounds on what a drawn plan gathers in its room.
const (
	// actionsBuffered is how many actions drawActions gathers before it needs the heap.
	actionsBuffered = 32
	// answersMax is the most answers a drawn plan has, each with at most one failure.
	answersMax = 24
	// callsPerAnswerMax is the most tool calls a drawn answer asks for.
	callsPerAnswerMax = 5
	// callsBuffered is how many tool calls a plan gathers in its room: more in about 0.2% of the
	// default mix's plans (at most 51 in the first 20,000 seeds).
	callsBuffered = 32
)

// newFail gathers fail in the room, until keepFailsAndCalls keeps it with the plan's others.
func (d *drawer) newFail(fail Fail) *Fail {
	r := d.room
	if r.failsUsed == len(r.fails) {
		panic("faults: invariant: a drawn plan has at most answersMax failures, one an answer")
	}
	f := &r.fails[r.failsUsed]
	*f = fail
	r.failsUsed++
	return f
}

// newCalls is an empty slice with room for n calls, gathered in the room after the calls of the
// answers drawn before, until keepFailsAndCalls keeps them with the plan's others. Its capacity
// is n, so an append to it never writes into another answer's calls. Once a plan's calls outgrow
// the room, each later answer's are made on the heap, so that the room holds the calls of the
// first answers only (keepFailsAndCalls).
func (d *drawer) newCalls(n int) []Call {
	r := d.room
	if r.callsFull || n > len(r.calls)-r.callsUsed {
		r.callsFull = true
		return make([]Call, 0, n)
	}
	calls := r.calls[r.callsUsed : r.callsUsed : r.callsUsed+n]
	r.callsUsed += n
	return calls
}

// keepFailsAndCalls moves the answers' failures and tool calls out of the room into a slice of
// each kind, of their exact number, and points the answers at them: the room holds them in
// answer order, each answer's calls side by side, and the calls of the first answers only when
// they outgrew it.
func (d *drawer) keepFailsAndCalls(answers []Answer) {
	r := d.room
	var fails []Fail
	var calls []Call
	if r.failsUsed > 0 {
		fails = make([]Fail, r.failsUsed)
		copy(fails, r.fails[:r.failsUsed])
	}
	if r.callsUsed > 0 {
		calls = make([]Call, r.callsUsed)
		copy(calls, r.calls[:r.callsUsed])
	}
	failsKept, callsKept := 0, 0
	for i := range answers {
		a := &answers[i]
		if a.Fail != nil {
			a.Fail = &fails[failsKept]
			failsKept++
		}
		if a.Calls != nil && callsKept < len(calls) {
			n := len(a.Calls)
			a.Calls = calls[callsKept : callsKept+n : callsKept+n]
			callsKept += n
		}
	}
	if failsKept != len(fails) || callsKept != len(calls) {
		panic("faults: invariant: every failure and call gathered in the room belongs to an answer")
	}
}
