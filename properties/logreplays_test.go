package properties

import (
	"bytes"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
)

func settledTurn(t *testing.T) *Run {
	return run(t,
		harness.UserMessage{Message: harness.Message{ID: "m1", Text: "hi"}},
		harness.InboxPush{Lane: harness.LaneNextTurn, Kind: harness.KindFollowup, MessageID: "m1"},
		harness.TurnStart{Turn: 1},
		harness.StepStart{Turn: 1, Step: 1},
		harness.InboxClaim{Turn: 1, Step: 1, Lane: harness.LaneNextTurn, MessageID: "m1"},
		harness.AssistantMessage{Turn: 1, Step: 1, Message: harness.AssembledMessage{Blocks: []harness.Block{{Type: harness.BlockText, Text: "hi"}}}, Finish: harness.FinishCompleted},
		harness.StepEnd{Turn: 1, Step: 1},
		harness.TurnEnd{Turn: 1, Reason: harness.TurnEndReason{Kind: harness.EndCompleted}},
	)
}

// log-replays catches every event that does not survive its write: a harness that wrote a value
// other than the one it keeps (or mangled it on the way), in any field of any line; the faithful
// log, checked after each, breaks nothing.
func TestLogReplaysCatchesAMangledEvent(t *testing.T) {
	r := settledTurn(t)
	faithful := r.JSONL
	lines := bytes.SplitAfter(faithful, []byte("\n"))
	lines = lines[:len(lines)-1] // the empty rest after the last newline
	// Each replacement changes one value of the line and leaves it decodable.
	changes := [][2]string{{`"seq":`, `"seq":1`}, {`"time":`, `"time":9`}, {`"turn":1`, `"turn":2`},
		{`"step":1`, `"step":3`}, {`"id":"m1"`, `"id":"m2"`}, {`"text":"hi"`, `"text":"ho"`},
		{`"messageId":"m1"`, `"messageId":"x"`}, {`"kind":"completed"`, `"kind":"error"`},
		{`"finish":"completed"`, `"finish":"max-tokens"`}, {`"lane":"next-turn"`, `"lane":"next-step"`}}
	hit := make([]bool, len(changes))
	for i, line := range lines {
		for j, c := range changes {
			if !bytes.Contains(line, []byte(c[0])) {
				continue
			}
			changed := bytes.Replace(line, []byte(c[0]), []byte(c[1]), 1)
			r.JSONL = slices.Concat(slices.Concat(lines[:i]...), changed, slices.Concat(lines[i+1:]...))
			assert.Equal(t, 1, fired(r)["log-replays"], "line %d with %s for %s: %s", i+1, c[1], c[0], changed)
			hit[j] = true
			r.JSONL = faithful
			assert.Empty(t, Check(r), "the faithful log after line %d with %s", i+1, c[1])
		}
	}
	for j, c := range changes {
		require.True(t, hit[j], "no line holds %s: the change mangled nothing", c[0])
	}

	// An event the harness changed in memory after writing it: the log kept is not the one read.
	r.Log = slices.Clone(r.Log)
	r.Log[4].Data = harness.InboxClaim{Turn: 1, Step: 1, Lane: harness.LaneNextTurn, MessageID: "m9"}
	assert.Equal(t, 1, fired(r)["log-replays"], "an event changed after its write")
}
