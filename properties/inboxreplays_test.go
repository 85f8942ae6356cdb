package properties

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/turnsim/turnsim/harness"
)

// randomInboxRun draws a run of sends, pushes, claims and clears in the two lanes and a third,
// of few message ids (some pushed unsaid, claimed twice or never pushed), between turns and
// steps that start and end in every way, with cancellations and refusals in its trace.
func randomInboxRun(t *rapid.T) *Run {
	lanes := rapid.SampledFrom([]harness.Lane{harness.LaneNextTurn, harness.LaneNextStep, "elsewhere"})
	kinds := rapid.SampledFrom([]harness.MessageKind{harness.KindFollowup, harness.KindSteer, harness.KindInject})
	ids := rapid.SampledFrom([]string{"m1", "m2", "m3", "m4"})
	ends := rapid.SampledFrom([]string{harness.EndCompleted, harness.EndMaxTokens, harness.EndAborted, harness.EndError})
	numbers := rapid.IntRange(1, 3)
	r := &Run{Traced: rapid.Bool().Draw(t, "traced"), Trace: Trace{IdleAtMs: -1}}
	n := rapid.IntRange(0, 40).Draw(t, "events")
	for i := range n {
		var d harness.EventData
		switch rapid.IntRange(0, 7).Draw(t, "kind") {
		case 0:
			id := ids.Draw(t, "id")
			d = harness.UserMessage{Message: harness.Message{ID: id, Text: "said " + id}}
		case 1:
			d = harness.InboxPush{Lane: lanes.Draw(t, "lane"), Kind: kinds.Draw(t, "kind"), MessageID: ids.Draw(t, "id")}
		case 2:
			d = harness.InboxClaim{Turn: numbers.Draw(t, "turn"), Step: numbers.Draw(t, "step"), Lane: lanes.Draw(t, "lane"), MessageID: ids.Draw(t, "id")}
		case 3:
			d = harness.InboxClear{Lane: lanes.Draw(t, "lane"), MessageID: ids.Draw(t, "id")}
		case 4:
			d = harness.TurnStart{Turn: numbers.Draw(t, "turn")}
		case 5:
			d = harness.StepStart{Turn: numbers.Draw(t, "turn"), Step: numbers.Draw(t, "step")}
		case 6:
			d = harness.TurnEnd{Turn: numbers.Draw(t, "turn"), Reason: harness.TurnEndReason{Kind: ends.Draw(t, "end")}}
		default:
			d = harness.StepEnd{Turn: numbers.Draw(t, "turn"), Step: numbers.Draw(t, "step")}
		}
		r.Log = append(r.Log, harness.Event{Seq: drawSeq(t, i, n), Type: d.EventType(), Time: int64(i / 3), Data: d})
	}
	for range rapid.IntRange(0, 6).Draw(t, "cancels") {
		r.Trace.Cancels = append(r.Trace.Cancels, Cancel{
			AtMs: rapid.Int64Range(0, int64(n/3)).Draw(t, "atMs"), SeqAt: rapid.Int64Range(0, int64(n)).Draw(t, "seqAt"),
			Kind:      rapid.SampledFrom([]string{harness.CauseUser, harness.CauseDisposed, pluginEnd}).Draw(t, "cause"),
			KeepInbox: rapid.Bool().Draw(t, "keepInbox"), Running: rapid.Bool().Draw(t, "running"), Turn: numbers.Draw(t, "turn"),
		})
	}
	for range rapid.IntRange(0, 2).Draw(t, "refusals") {
		r.Trace.Refusals = append(r.Trace.Refusals, Refusal{
			AtMs: rapid.Int64Range(0, int64(n/3)).Draw(t, "atMs"), Turn: numbers.Draw(t, "turn"), Step: numbers.Draw(t, "step"),
			Type: rapid.SampledFrom([]string{harness.TypeInboxClaim, harness.TypeInboxClear, harness.TypeStepEnd}).Draw(t, "type"),
		})
	}
	return r
}

// violationsOf runs check on r's index.
func violationsOf(r *Run, check func(*index, *violations)) []Violation {
	v := &violations{property: "p"}
	check(newIndex(r), v)
	return v.found
}

// inbox-replays replays the lanes in fields and its sends in a slice; on any run it finds what
// it found with its maps, message for message.
func TestInboxReplaysIsTheMapsVersion(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := randomInboxRun(t)
		require.Equal(t, violationsOf(r, checkInboxReplaysByMaps), violationsOf(r, checkInboxReplays))
	})
}

// checkInboxReplaysByMaps is inbox-replays as it was, with its maps: the reference.
func checkInboxReplaysByMaps(x *index, v *violations) {
	b := replayedInbox{lanes: map[harness.Lane][]string{}, kinds: map[string]harness.MessageKind{}}
	said := map[string]bool{}
	claimsOpen := false // between a step/start and its first event other than a claim or a send
	var turn, step, nextTurnClaims int
	var owed []string // the next-step lane when the step started: all of it is the step's to claim
	closeClaims := func(e harness.Event) {
		left := 0
		for _, id := range owed {
			if slices.Contains(b.lanes[harness.LaneNextStep], id) {
				left++
			}
		}
		// A cancel that came first keeps (or clears) the inbox: nothing is claimed after it.
		if claimsOpen && left > 0 && !x.refusedIn(turn, step, harness.TypeInboxClaim) && !x.cancelledIn(turn, e.Seq) {
			v.add(e.Seq, e.Time, "turn %d step %d left %d message(s) in the next-step lane unclaimed", turn, step, left)
		}
		claimsOpen = false
	}
	for _, e := range x.run.Log {
		switch e.Data.(type) {
		case harness.InboxClaim, harness.UserMessage, harness.InboxPush:
			// a send (from an observer called back inside the step, say) may come between a
			// step's claims: it does not end them
		default:
			closeClaims(e)
		}
		switch d := e.Data.(type) {
		case harness.UserMessage:
			said[d.Message.ID] = true
		case harness.InboxPush:
			if !said[d.MessageID] {
				v.add(e.Seq, e.Time, "message %s pushed without its user/message", d.MessageID)
			}
			want := harness.LaneNextStep
			switch {
			case d.Kind == harness.KindFollowup:
				want = harness.LaneNextTurn
			case d.Kind == harness.KindSteer:
				if _, _, aborted := x.abortedTurnAt(e.Seq); aborted {
					want = harness.LaneNextTurn // the aborted turn takes no further step
				} else if x.cancelledBeforeTurnAt(e.Seq) {
					want = d.Lane // a phase cancelled before its turn began: either lane, by when the driver left
				}
			}
			if d.Lane != want && (x.run.Traced || d.Kind != harness.KindSteer) { // a log alone cannot tell when a turn was cancelled
				v.add(e.Seq, e.Time, "a %s was pushed to the %s lane, not %s", d.Kind, d.Lane, want)
			}
			b.lanes[d.Lane] = append(b.lanes[d.Lane], d.MessageID)
			b.kinds[d.MessageID] = d.Kind
		case harness.StepStart:
			turn, step, nextTurnClaims, claimsOpen = d.Turn, d.Step, 0, true
			owed = slices.Clone(b.lanes[harness.LaneNextStep])
		case harness.InboxClaim:
			if d.Lane == harness.LaneNextTurn {
				nextTurnClaims++
				if d.Step > 1 || nextTurnClaims > 1 || (len(b.lanes[d.Lane]) > 0 && b.lanes[d.Lane][0] != d.MessageID) {
					v.add(e.Seq, e.Time, "turn %d step %d claimed next-turn message %s: only a turn's first step takes one, the oldest", d.Turn, d.Step, d.MessageID)
				}
			}
			if !b.remove(d.Lane, d.MessageID) {
				v.add(e.Seq, e.Time, "turn %d step %d claimed %s, which is not in the %s lane", d.Turn, d.Step, d.MessageID, d.Lane)
			}
		case harness.InboxClear:
			if !b.remove(d.Lane, d.MessageID) {
				v.add(e.Seq, e.Time, "cleared %s, which is not in the %s lane", d.MessageID, d.Lane)
			}
		case harness.TurnEnd:
			// In the simulator nothing runs between the turn's last look at the lane and its end;
			// on real goroutines a send may land in between, so a log alone is not held to it.
			if (d.Reason.Kind == harness.EndCompleted || d.Reason.Kind == harness.EndMaxTokens) && len(b.lanes[harness.LaneNextStep]) > 0 && x.run.Traced {
				v.add(e.Seq, e.Time, "turn %d ended %s with %d message(s) waiting in the next-step lane", d.Turn, d.Reason.Kind, len(b.lanes[harness.LaneNextStep]))
			}
		}
	}
}
