package faults

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
)

// drawOnly draws plans from seeds with one fault striking every answer.
func drawOnly(t *testing.T, fault string, seeds int) []Answer {
	t.Helper()
	var answers []Answer
	for seed := int64(1); seed <= int64(seeds); seed++ {
		plan := DrawPlan(rand.New(rand.NewSource(seed)), Swarm{fault: 1})
		require.NoError(t, plan.Validate())
		answers = append(answers, plan.Answers...)
	}
	return answers
}

// A wrapped failure is a Failure with a code and one or two wrapping layers of both kinds.
func TestWrappedFailureAnswers(t *testing.T) {
	layers := map[string]int{}
	for _, a := range drawOnly(t, WrappedFailure, 50) {
		require.Equal(t, WrappedFailure, a.Fault)
		require.NotNil(t, a.Fail)
		assert.NotEmpty(t, a.Fail.Code)
		assert.False(t, a.Fail.Plain, "a plain error has no Failure to find")
		assert.True(t, len(a.Fail.Wrap) >= 1 && len(a.Fail.Wrap) <= 2, "%v", a.Fail.Wrap)
		for _, l := range a.Fail.Wrap {
			layers[l]++
		}
	}
	assert.Positive(t, layers[WrapErrorf])
	assert.Positive(t, layers[WrapJoin])
}

// A stream that ignores cancellation talks slowly enough to be cancelled mid-way, sometimes with
// tool calls, and never fails.
func TestStreamIgnoresCancelAnswers(t *testing.T) {
	withCalls := 0
	for _, a := range drawOnly(t, StreamIgnoresCancel, 50) {
		require.Equal(t, StreamIgnoresCancel, a.Fault)
		assert.True(t, a.IgnoreCancel)
		assert.Nil(t, a.Fail)
		assert.GreaterOrEqual(t, a.Chunks, 1)
		assert.True(t, a.ChunkDelayMs >= 100 && a.ChunkDelayMs <= 2000, "%d", a.ChunkDelayMs)
		if len(a.Calls) > 0 {
			withCalls++
			assert.Equal(t, harness.FinishToolCalls, a.Finish)
		} else {
			assert.Equal(t, harness.FinishCompleted, a.Finish)
		}
	}
	assert.Positive(t, withCalls)
}

func TestWrapLayersAreValidated(t *testing.T) {
	plan := func(wrap ...string) Plan {
		return Plan{Policy: harness.DefaultRetryPolicy(), HorizonMs: 1000, Answers: []Answer{{Fail: &Fail{Code: harness.CodeServer, Message: "x", Wrap: wrap}}}}
	}
	require.NoError(t, plan(WrapErrorf, WrapJoin).Validate())
	err := plan(WrapErrorf, "gift-wrap").Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `answers[0]: fail.wrap[1] "gift-wrap"`)
	assert.Error(t, plan(WrapJoin, WrapJoin, WrapJoin, WrapJoin, WrapJoin).Validate(), "too many layers")
}
