package properties

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
)

// Checks on the spare index, one run after another (each filling and growing its arrays and its
// decoder for the next), find what checks on fresh indexes find: nothing of one run stays to
// change the next's verdicts. The runs break different properties, and the larger come first.
func TestReusedSpareChecksAsFreshIndexes(t *testing.T) {
	completed := harness.TurnEndReason{Kind: harness.EndCompleted}
	twoTurns := run(t,
		harness.TurnStart{Turn: 1},
		harness.StepStart{Turn: 1, Step: 1},
		harness.ToolCall{Turn: 1, Step: 1, CallID: "c1", Name: "read"},
		harness.ToolCall{Turn: 1, Step: 1, CallID: "c2", Name: "read"},
		harness.ToolResult{Turn: 1, Step: 1, CallID: "c2", Content: "two"},
		harness.AssistantMessage{Turn: 1, Step: 1, Finish: harness.FinishMaxTokens},
		harness.StepEnd{Turn: 1, Step: 1},
		harness.TurnEnd{Turn: 1, Reason: completed},
		harness.TurnStart{Turn: 2},
		harness.StepStart{Turn: 2, Step: 1},
		harness.StepEnd{Turn: 2, Step: 1},
		harness.TurnEnd{Turn: 2, Reason: completed},
	)
	unsettled := run(t, harness.TurnStart{Turn: 1}, harness.StepStart{Turn: 1, Step: 1})
	unreadable := run(t, harness.TurnStart{Turn: 1}, harness.TurnEnd{Turn: 1, Reason: completed})
	unreadable.JSONL = append(unreadable.JSONL, "{oops\n"...)
	settled := settledTurn(t)
	runs := []*Run{twoTurns, unsettled, unreadable, settled, twoTurns}

	var fresh [][]Violation
	for _, r := range runs {
		spareIndex.Store(new(index))
		fresh = append(fresh, Check(r))
	}
	spare := spareIndex.Load()
	for i, r := range runs {
		require.Equal(t, fresh[i], Check(r), "run %d", i)
		require.Same(t, spare, spareIndex.Load(), "the spare is taken and handed back")
	}
	assert.NotEmpty(t, fresh[0])
	assert.NotEqual(t, fresh[0], fresh[1])
}

// An index whose arrays grew for a large log goes to the pool, where the collector may take
// them; one of a simulator's small logs is held as the spare, one at a time.
func TestSpareIsOneSmallIndex(t *testing.T) {
	spareIndex.Store(nil)
	large := takeIndex()
	large.bufs.largestEvents = spareLogEventsMax + 1
	large.release()
	assert.Nil(t, spareIndex.Load(), "a large index is not the spare")
	larger := takeIndex()
	larger.bufs.largestBytes = spareLogBytesMax + 1
	larger.release()
	assert.Nil(t, spareIndex.Load(), "a large index is not the spare")

	small, other := new(index), new(index)
	small.release()
	other.release()
	assert.Same(t, small, spareIndex.Load(), "the first released is the spare, the other pooled")
	assert.Same(t, small, takeIndex())
	assert.Nil(t, spareIndex.Load(), "taken")
}
