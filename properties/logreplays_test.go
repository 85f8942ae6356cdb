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

// firstLines is the first n lines of JSON Lines.
func firstLines(jsonl []byte, n int) []byte {
	end := 0
	for range n {
		end += bytes.IndexByte(jsonl[end:], '\n') + 1
	}
	return jsonl[:end]
}

// log-replays takes a read-back's events for the lines it covers, and only when the log begins
// with its bytes: a read-back whose events differ from the log is caught (they were used), one
// whose bytes are not the log's is ignored, and an undecodable line after it is reported as
// without one.
func TestLogReplaysTakesTheReadBackForItsBytes(t *testing.T) {
	r := settledTurn(t)
	prefix := firstLines(r.JSONL, 3)
	r.ReadBack = &ReadBack{Bytes: prefix, Events: slices.Clone(r.Log[:3])}
	assert.Empty(t, Check(r), "a faithful read-back")

	r.ReadBack.Events[0].Data = harness.UserMessage{Message: harness.Message{ID: "m1", Text: "changed"}}
	assert.Equal(t, 1, fired(r)["log-replays"], "the read-back's events are the decoding of its bytes")

	r.ReadBack.Bytes = append(bytes.Clone(prefix[:len(prefix)-2]), "x\n"...)
	assert.Empty(t, Check(r), "bytes that are not the log's: the whole log is decoded")

	r.ReadBack = nil
	r.JSONL = append(r.JSONL, "{oops\n"...)
	without := Check(r)
	require.Len(t, without, 1)
	r.ReadBack = &ReadBack{Bytes: prefix, Events: slices.Clone(r.Log[:3])}
	assert.Equal(t, without, Check(r), "the same message, naming the same line")
}

// A read-back covering the whole log leaves nothing to decode: its events are the log's (a
// changed one is caught); one ending inside a line leaves a rest that does not decode alone, and
// the whole log is decoded instead.
func TestLogReplaysReadBackToTheEndOrMidLine(t *testing.T) {
	r := settledTurn(t)
	r.ReadBack = &ReadBack{Bytes: r.JSONL, Events: slices.Clone(r.Log)}
	assert.Empty(t, Check(r), "a read-back of the whole log")
	r.ReadBack.Events[7].Data = harness.TurnEnd{Turn: 1, Reason: harness.TurnEndReason{Kind: harness.EndError}}
	assert.Equal(t, 1, fired(r)["log-replays"], "its events are the decoding of the whole log")

	prefix := firstLines(r.JSONL, 3)
	r.ReadBack = &ReadBack{Bytes: r.JSONL[:len(prefix)+5], Events: slices.Clone(r.Log[:3])}
	assert.Empty(t, Check(r), "a read-back ending inside a line")
}

// log-replays catches every event that does not survive its write: a harness that wrote a value
// other than the one it keeps (or mangled it on the way), in any field of any line. Each mangled
// log is checked between faithful ones, so the decoder's memory, kept from one check to the
// next, carries nothing from one to another: a mangled line is never read as the last log's.
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
