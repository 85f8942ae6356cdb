package properties

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
)

// A refused append's line must be nowhere: the session's log, the JSON Lines, the durable bytes.
// Only a later accepted append at the same seq may put an equal line there.
func TestRefusedLeavesNoLine(t *testing.T) {
	settled := []harness.EventData{
		harness.TurnStart{Turn: 1},
		harness.TurnEnd{Turn: 1, Reason: harness.TurnEndReason{Kind: harness.EndCompleted}},
	}
	refusedEnd := func(r *Run) Refusal {
		e := r.Log[1]
		return Refusal{AtMs: e.Time, Type: e.Type, Turn: 1, Event: e}
	}
	cases := map[string]struct {
		edit func(r *Run)
		want string
	}{
		"in the session's log": {func(r *Run) { r.Trace.Refusals = []Refusal{refusedEnd(r)} }, "the session's log holds it"},
		"in the JSON Lines only": {func(r *Run) {
			r.Trace.Refusals = []Refusal{refusedEnd(r)}
			r.Log = r.Log[:1]
		}, "the JSON Lines log holds its line"},
		"in the durable bytes only": {func(r *Run) {
			r.Trace.Refusals = []Refusal{refusedEnd(r)}
			r.Trace.DurableAtEnd = bytes.Clone(r.JSONL)
			r.Log, r.JSONL = r.Log[:1], r.JSONL[:bytes.IndexByte(r.JSONL, '\n')+1]
		}, "the durable log at the end holds its line"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := run(t, settled...)
			c.edit(r)
			require.Equal(t, 1, fired(r)["refused-leaves-no-line"], "%v", Check(r))
			for _, v := range Check(r) {
				if v.Property == "refused-leaves-no-line" {
					assert.Contains(t, v.Message, c.want)
				}
			}
		})
	}

	t.Run("a later append took its seq", func(t *testing.T) {
		r := run(t, settled...)
		refusal := refusedEnd(r)
		refusal.SeqRetaken = true
		r.Trace.Refusals = []Refusal{refusal}
		assert.Zero(t, fired(r)["refused-leaves-no-line"])
	})
	t.Run("another event at its seq", func(t *testing.T) {
		r := run(t, settled...)
		refusal := refusedEnd(r)
		refusal.Event.Data = harness.TurnEnd{Turn: 1, Reason: harness.TurnEndReason{Kind: harness.EndAborted}}
		r.Trace.Refusals = []Refusal{refusal}
		r.Trace.DurableAtEnd = bytes.Clone(r.JSONL)
		assert.Zero(t, fired(r)["refused-leaves-no-line"])
	})
	t.Run("a torn line at its seq", func(t *testing.T) {
		r := run(t, settled...)
		r.Trace.Refusals = []Refusal{refusedEnd(r)}
		r.Trace.DurableAtEnd = bytes.Clone(r.JSONL[:len(r.JSONL)-1])
		r.Log, r.JSONL = r.Log[:1], r.JSONL[:bytes.IndexByte(r.JSONL, '\n')+1]
		assert.Zero(t, fired(r)["refused-leaves-no-line"], "a line without its newline is cut off on reopening")
	})
}
