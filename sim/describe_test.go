package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/turnsim/turnsim/harness"
)

// Story keeps what happened and drops only the retry's jittered delay: two runs that retried the
// same failure after different delays tell the same story, a different failure does not.
func TestStoryLeavesOutOnlyTheRetryDelay(t *testing.T) {
	retry := func(code string, delayMs float64) harness.Event {
		return harness.Event{Type: harness.TypeLlmRetry, Data: harness.LlmRetry{
			Turn: 1, Step: 1, Retry: 1, Mode: harness.ModeAlways, DelayMs: delayMs,
			Failure: harness.Failure{Code: code},
		}}
	}
	start := harness.Event{Type: harness.TypeTurnStart, Data: harness.TurnStart{Turn: 1}}
	a := Story([]harness.Event{start, retry("rate_limit", 812)})
	b := Story([]harness.Event{start, retry("rate_limit", 1337)})
	assert.Equal(t, a, b)
	assert.Equal(t, Describe(start), a[0])
	assert.NotContains(t, a[1], "delay=")
	assert.Contains(t, Describe(retry("rate_limit", 812)), "delay=812ms", "Describe keeps the delay")
	assert.NotEqual(t, a, Story([]harness.Event{start, retry("server_error", 812)}))
}
