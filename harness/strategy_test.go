package harness_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/sim/sched"
)

// fixedStrategy waits the same delay every time and counts what it is told.
type fixedStrategy struct {
	delayMs   float64
	budget    int
	seen      []harness.RetryContext
	successes int
	failures  int
}

func (s *fixedStrategy) Key() string        { return "fixed" }
func (s *fixedStrategy) Mode() harness.Mode { return harness.ModeNormal }
func (s *fixedStrategy) Budget() int        { return s.budget }
func (s *fixedStrategy) CapMs() float64     { return s.delayMs }
func (s *fixedStrategy) Decide(c harness.RetryContext) harness.RetryDecision {
	s.seen = append(s.seen, c)
	return harness.Wait(s.delayMs)
}
func (s *fixedStrategy) Observe(o harness.AttemptOutcome) {
	if o.Success {
		s.successes++
	} else {
		s.failures++
	}
}

// A user's strategy decides the delays; the plugin still writes llm/retry before each wait,
// keeps the chain in the log (the strategy sees its earlier delays), enforces the budget, and
// tells an observer every attempt's outcome.
func TestAUserStrategyPlugsIntoLlmRetry(t *testing.T) {
	strategy := &fixedStrategy{delayMs: 250, budget: 3}
	s := sched.New(sched.Options{Seed: 1})
	var events []harness.Event
	s.Run("main", func() {
		limited := sim.Fail(100*time.Millisecond, sim.Failure(harness.CodeRateLimit, "slow down"))
		agent, err := harness.New(harness.Config{
			Provider:      sim.NewScriptedProvider("p", s, limited, limited, sim.Text(100*time.Millisecond, "ok", harness.FinishCompleted)),
			Runtime:       s,
			RetryStrategy: strategy,
		})
		require.NoError(t, err)
		_, err = agent.Followup("hi")
		require.NoError(t, err)
		require.NoError(t, agent.WhenIdle(context.Background()))
		events = agent.Session().Events()
	})
	var lines []string
	for _, e := range events {
		if e.Type == harness.TypeLlmRetry || e.Type == harness.TypeLlmRetryStarted || e.Type == harness.TypeTurnEnd {
			lines = append(lines, sim.Describe(e)+" @"+time.Duration(e.Time*int64(time.Millisecond)).String())
		}
	}
	assert.Equal(t, []string{
		"llm/retry 1.1 #1 normal RATE_LIMIT delay=250ms @100ms",
		"llm/retry-started 1.1 #1 @350ms",
		"llm/retry 1.1 #2 normal RATE_LIMIT delay=250ms @450ms",
		"llm/retry-started 1.1 #2 @700ms",
		"turn/end 1 completed @800ms",
	}, lines)
	require.Len(t, strategy.seen, 2)
	assert.Empty(t, strategy.seen[0].EarlierDelaysMs)
	assert.Equal(t, []float64{250}, strategy.seen[1].EarlierDelaysMs)
	assert.Equal(t, 350.0, strategy.seen[1].SinceFirstFailureMs)
	assert.Equal(t, 1, strategy.successes)
	assert.Equal(t, 2, strategy.failures)
}

func TestNewRefusesAStrategyWithoutKeyOrBudget(t *testing.T) {
	_, err := harness.New(harness.Config{Provider: sim.NewScriptedProvider("p", nil), RetryStrategy: &fixedStrategy{budget: 0}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "budget of at least 1")
}
