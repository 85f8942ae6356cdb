package properties

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/turnsim/turnsim/harness"
)

// replayedInbox is the inbox rebuilt from the log as inbox-replays once did, in a map by lane:
// the reference that pendingAt and inboxLanes are held to.
type replayedInbox struct {
	lanes map[harness.Lane][]string
	kinds map[string]harness.MessageKind
}

func (b *replayedInbox) remove(lane harness.Lane, id string) bool {
	i := slices.Index(b.lanes[lane], id)
	if i < 0 {
		return false
	}
	b.lanes[lane] = slices.Delete(b.lanes[lane], i, i+1)
	return true
}

// inboxAtPending is what pendingAt replaced: the inbox replayed with replayedInbox, fresh maps
// and all, up to the event at seq, and its two lanes' messages counted.
func inboxAtPending(x *index, seq int64) int {
	b := replayedInbox{lanes: map[harness.Lane][]string{}, kinds: map[string]harness.MessageKind{}}
	for _, e := range x.run.Log {
		if e.Seq >= seq {
			break
		}
		switch d := e.Data.(type) {
		case harness.InboxPush:
			b.lanes[d.Lane] = append(b.lanes[d.Lane], d.MessageID)
			b.kinds[d.MessageID] = d.Kind
		case harness.InboxClaim:
			b.remove(d.Lane, d.MessageID)
		case harness.InboxClear:
			b.remove(d.Lane, d.MessageID)
		}
	}
	return len(b.lanes[harness.LaneNextTurn]) + len(b.lanes[harness.LaneNextStep])
}

// drawSeq is the seq of the log's event at position i of n: mostly i+1, as a harness writes it,
// now and then any seq of the log's (a broken log's, repeated or out of order).
func drawSeq(t *rapid.T, i, n int) int64 {
	if rapid.IntRange(0, 9).Draw(t, "disorder") == 0 {
		return rapid.Int64Range(1, int64(n)).Draw(t, "seq")
	}
	return int64(i + 1)
}

// pendingAt counts what the replayed inbox holds at every seq of logs of pushes, claims and
// clears in both lanes and a third, of few message ids (so some repeat, some are missing),
// between other events, some seqs out of order (a broken log); calls follow one another on the
// same index, reusing its lanes.
func TestPendingAtIsTheReplayedInboxsCount(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lanes := rapid.SampledFrom([]harness.Lane{harness.LaneNextTurn, harness.LaneNextStep, "elsewhere"})
		ids := rapid.SampledFrom([]string{"m1", "m2", "m3"})
		n := rapid.IntRange(0, 30).Draw(t, "events")
		var log []harness.Event
		for i := range n {
			var d harness.EventData
			switch rapid.IntRange(0, 3).Draw(t, "kind") {
			case 0:
				d = harness.InboxPush{Lane: lanes.Draw(t, "lane"), Kind: harness.KindSteer, MessageID: ids.Draw(t, "id")}
			case 1:
				d = harness.InboxClaim{Turn: rapid.IntRange(1, 2).Draw(t, "turn"), Step: 1, Lane: lanes.Draw(t, "lane"), MessageID: ids.Draw(t, "id")}
			case 2:
				d = harness.InboxClear{Lane: lanes.Draw(t, "lane"), MessageID: ids.Draw(t, "id")}
			default:
				d = harness.StepStart{Turn: 1, Step: i}
			}
			log = append(log, harness.Event{Seq: drawSeq(t, i, n), Type: d.EventType(), Data: d})
		}
		x := newIndex(&Run{Log: log})
		for _, seq := range rapid.SliceOf(rapid.OneOf(rapid.Int64Range(0, int64(n+2)), rapid.SampledFrom([]int64{math.MinInt64, -1, math.MaxInt64}))).Draw(t, "seqs") {
			require.Equal(t, inboxAtPending(x, seq), x.pendingAt(seq), "before event %d", seq)
		}
		// claimedIn, which looks at the index's inbox events only, finds a claim the log holds.
		for turn := range 4 {
			claimed := slices.ContainsFunc(log, func(e harness.Event) bool {
				c, ok := e.Data.(harness.InboxClaim)
				return ok && c.Turn == turn
			})
			require.Equal(t, claimed, x.claimedIn(turn), "turn %d", turn)
		}
	})
}
