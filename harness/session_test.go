package harness_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
)

// steppingClock is a clock that moves a quarter second each time it is read.
type steppingClock struct{ now time.Time }

func (c *steppingClock) Now() time.Time {
	c.now = c.now.Add(250 * time.Millisecond)
	return c.now
}

// Log is the log without a copy: what it returned stays as it was while the session goes on,
// and an append to it never writes into the session's own log.
func TestSessionLogIsAPrefixThatNeverChanges(t *testing.T) {
	session := harness.NewSession(&steppingClock{now: time.UnixMilli(1_700_000_000_000)}, nil)
	_, err := session.Append(harness.TurnStart{Turn: 1})
	require.NoError(t, err)
	before := session.Log()
	require.Len(t, before, 1)
	assert.Equal(t, len(before), cap(before), "clipped: an append to it copies")

	_, err = session.Append(harness.TurnEnd{Turn: 1, Reason: harness.TurnEndReason{Kind: harness.EndCompleted}})
	require.NoError(t, err)
	_ = append(before, harness.Event{Seq: 99, Type: "mine"}) // the caller's own append to its view
	after := session.Log()

	assert.Equal(t, session.Events(), after)
	require.Len(t, after, 2)
	assert.Equal(t, after[:1], before, "the earlier view is the later one's prefix")
	assert.Equal(t, harness.TypeTurnEnd, after[1].Type, "the caller's append went to a copy, not into the session's log")
}

// An observer sees every event appended after it registered, in order, and a later observer
// joins from the next event on.
func TestObserversSeeEveryEventFromTheirOwnOn(t *testing.T) {
	clock := &steppingClock{now: time.UnixMilli(1_700_000_000_000)}
	s := harness.NewSession(clock, nil)
	var first, second []int64
	s.Observe(func(e harness.Event) { first = append(first, e.Seq) })
	_, err := s.Append(harness.TurnStart{Turn: 1})
	require.NoError(t, err)
	s.Observe(func(e harness.Event) { second = append(second, e.Seq) })
	_, err = s.Append(harness.TurnEnd{Turn: 1, Reason: harness.TurnEndReason{Kind: harness.EndCompleted}})
	require.NoError(t, err)
	assert.Equal(t, []int64{1, 2}, first)
	assert.Equal(t, []int64{2}, second)
}
