package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/internal/splitmix"
)

// Whatever a policy's formula gave for a retry, jitterDraw finds a draw that gives it again: a
// log's delays are the replay's.
func TestJitterDrawGivesTheLoggedDelayAgain(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		policy := harness.RetryPolicy{
			Mode:           harness.ModeNormal,
			InitialDelayMs: float64(rapid.Int64Range(1, 5_000).Draw(t, "initial")),
			JitterRatio:    rapid.Float64Range(0, 1).Draw(t, "jitter"),
			MaxRetries:     3,
		}
		policy.MaxDelayMs = policy.InitialDelayMs * float64(rapid.Int64Range(1, 64).Draw(t, "maxFactor"))
		retry := rapid.IntRange(1, 12).Draw(t, "retry")
		delay := harness.LocalDelayMs(policy, retry, rapid.Float64Range(0, 1-0x1p-53).Draw(t, "u"))
		u, ok := jitterDraw(policy, retry, delay)
		require.True(t, ok, "delay %g of retry %d under %+v", delay, retry, policy)
		assert.Equal(t, delay, harness.LocalDelayMs(policy, retry, u))
		assert.True(t, u >= 0 && u < 1)
	})
}

// A delay no draw gives is said to be so.
func TestJitterDrawRefusesADelayOutsideTheWindow(t *testing.T) {
	_, ok := jitterDraw(faults.SpecRetryPolicy(), 1, 900)
	assert.False(t, ok)
}

// The replay's random source gives its script first, then the seed's stream: a changed agent
// that draws more than the incident's still runs.
func TestScriptedRandomGivesItsDrawsThenTheSeeds(t *testing.T) {
	s := Schedule{Replay: &Replay{Draws: []Draws{{Floats: []float64{0.25}, RetryIDs: []string{"8213c68e-585d-4831-9d6f-e1bb8b23793c"}}}}}
	seeded := &splitmix.Random{Rand: splitmix.New(1)}
	same := &splitmix.Random{Rand: splitmix.New(1)}
	r := s.randomFor(1, seeded)
	assert.Equal(t, 0.25, r.Float64())
	assert.Equal(t, same.Float64(), r.Float64())
	id := make([]byte, 20)
	n, err := r.Read(id)
	require.NoError(t, err)
	assert.Equal(t, 20, n)
	assert.Equal(t, []byte{0x82, 0x13, 0xc6, 0x8e}, id[:4])
	rest := make([]byte, 4)
	_, _ = same.Read(rest)
	assert.Equal(t, rest, id[16:])
	assert.Same(t, seeded, s.randomFor(2, seeded), "an incarnation without draws has the seed's source")
	assert.Same(t, seeded, (&Schedule{}).randomFor(1, seeded))
}

// A schedule's replay part is validated like the rest of it, naming the field.
func TestReplayValidateNamesTheField(t *testing.T) {
	cases := map[string]Replay{
		"startMs -1":         {StartMs: -1},
		"floats[0] 1":        {Draws: []Draws{{Floats: []float64{1}}}},
		`retryIds[0] "nope"`: {Draws: []Draws{{RetryIDs: []string{"nope"}}}},
	}
	for says, r := range cases {
		s := NewSchedule(1, nil)
		s.Replay = &r
		err := s.Validate()
		require.Error(t, err, says)
		assert.Contains(t, err.Error(), says)
	}
}

// A log that ends inside a turn (its process died and nobody reopened it) matches a replay that
// goes on with exactly crash repair's events, and nothing else.
func TestCompareLogsAllowsOnlyCrashRepairPastAnOpenEnd(t *testing.T) {
	events, err := ReadSessionLog("log.jsonl", []byte(goodLog))
	require.NoError(t, err)
	open := events[:6] // ends after the first chunk, turn 1 open
	repaired := append(append([]harness.Event(nil), open...),
		harness.Event{Seq: 7, Type: harness.TypeStepEnd, Time: 5000, Data: harness.StepEnd{Turn: 1, Step: 1}},
		harness.Event{Seq: 8, Type: harness.TypeTurnEnd, Time: 5000, Data: harness.TurnEnd{Turn: 1, Reason: harness.TurnEndReason{Kind: harness.EndInterrupted}}})
	assert.Nil(t, CompareLogs(open, repaired, 0))
	m := CompareLogs(open, events, 0)
	require.NotNil(t, m)
	assert.Equal(t, 7, m.Line)
	assert.Contains(t, m.String(), "other than with crash repair's events")
	m = CompareLogs(events, open, 0)
	require.NotNil(t, m)
	assert.Contains(t, m.Reason, "the replay's log ends here")
	late := append([]harness.Event(nil), events...)
	late[9].Time += 251
	assert.Nil(t, CompareLogs(events, late, 251))
	assert.Contains(t, CompareLogs(events, late, 250).Reason, "+251 ms")
}
