package harness

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// retryIDs answers the same whether it searches its list or, past retryIDsSmall ids, its map.
func TestRetryIDsAcrossTheSwitchToAMap(t *testing.T) {
	var r retryIDs
	for i := range 3 * retryIDsSmall {
		id := fmt.Sprintf("r%d", i)
		assert.False(t, r.has(id), "%s before it is added", id)
		r.add(id)
		r.add(id) // twice: still one id
		for j := 0; j <= i; j++ {
			assert.True(t, r.has(fmt.Sprintf("r%d", j)), "r%d after %d ids", j, i+1)
		}
		assert.False(t, r.has(fmt.Sprintf("r%d", i+1)))
	}
	assert.NotNil(t, r.index)
	assert.Len(t, r.index, 3*retryIDsSmall)
}

// A step's calls and chains, and the retries awaiting their start, are found by key and updated
// in place, and a removed retry is gone while the others stay.
func TestStepStateSlices(t *testing.T) {
	var calls stepCalls
	calls.set("a", false)
	calls.set("b", false)
	calls.set("a", true)
	resulted, seen := calls.find("a")
	assert.True(t, resulted && seen)
	resulted, seen = calls.find("b")
	assert.True(t, seen)
	assert.False(t, resulted)
	_, seen = calls.find("c")
	assert.False(t, seen)
	assert.Len(t, calls, 2)

	var chains stepChains
	k1, k2 := ChainKey{1, 1, "p", "k"}, ChainKey{1, 1, "p", "other"}
	chains.set(k1, ChainState{RetryID: "x", Retry: 1})
	chains.set(k2, ChainState{RetryID: "y", Retry: 1})
	chains.set(k1, ChainState{RetryID: "x", Retry: 2})
	s, ok := chains.find(k1)
	assert.True(t, ok)
	assert.Equal(t, 2, s.Retry)
	_, ok = chains.find(ChainKey{1, 2, "p", "k"})
	assert.False(t, ok)

	var a awaitingStarts
	a.set(startedKey{"x", 1}, StepStart{Turn: 1, Step: 1})
	a.set(startedKey{"y", 1}, StepStart{Turn: 1, Step: 2})
	a.remove(startedKey{"x", 1})
	_, ok = a.find(startedKey{"x", 1})
	assert.False(t, ok)
	at, ok := a.find(startedKey{"y", 1})
	assert.True(t, ok)
	assert.Equal(t, 2, at.Step)
}

// The first chain's delays never change once handed out: not by the chain's next retry, nor by
// another chain's.
func TestHandedOutDelaysNeverChange(t *testing.T) {
	second := retryEvent("r1", 2)
	other := retryEvent("r2", 1)
	other.Provider = "other"
	log := logOf(TurnStart{Turn: 1}, StepStart{Turn: 1, Step: 1}, retryEvent("r1", 1),
		LlmRetryStarted{RetryID: "r1", Turn: 1, Step: 1, Retry: 1})
	var v Validator
	for _, e := range log {
		require.NoError(t, v.Append(e))
	}
	key := ChainKey{1, 1, "p", "k"}
	first, ok := v.Chain(key)
	require.True(t, ok)
	require.Equal(t, []float64{500}, first.DelaysMs)
	for i, d := range []EventData{second, other} {
		require.NoError(t, v.Append(Event{Seq: int64(len(log) + i + 1), Type: d.EventType(), Data: d}))
	}
	assert.Equal(t, []float64{500}, first.DelaysMs, "handed out before the next retries")
	now, _ := v.Chain(key)
	assert.Equal(t, []float64{500, 500}, now.DelaysMs)
	otherChain, _ := v.Chain(ChainKey{1, 1, "other", "k"})
	assert.Equal(t, []float64{500}, otherChain.DelaysMs)
}
