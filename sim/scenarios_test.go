package sim

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/eventjson"
)

// at renders events as "virtual-ms description" lines: the form the scenario tests state their
// expectations in.
func at(events []harness.Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = fmt.Sprintf("%d %s", e.Time, Describe(e))
	}
	return out
}

// retryDelays returns the delayMs of every llm/retry, in order.
func retryDelays(events []harness.Event) []float64 {
	var delays []float64
	for _, e := range events {
		if r, ok := e.Data.(harness.LlmRetry); ok {
			delays = append(delays, r.DelayMs)
		}
	}
	return delays
}

func simulate(t *testing.T, name string, seed int64) ScenarioResult {
	t.Helper()
	r, err := SimulateScenario(name, seed)
	require.NoError(t, err)
	require.NoError(t, harness.ValidateLog(r.Events), "every scenario log passes the invariant layer")
	assert.True(t, r.Idle, "the agent ends idle")
	return r
}

// seedsToTry: every scenario is checked on several seeds, since the jitter draw (and the
// scheduler's choices) change with the seed while the story must not.
var seedsToTry = []int64{1, 2, 3, 42, 1000}

func TestScenarioDurableBeforeWait(t *testing.T) {
	for _, seed := range seedsToTry {
		r := simulate(t, "durable-before-wait", seed)
		delays := retryDelays(r.Events)
		require.Len(t, delays, 1)
		d := int64(delays[0])
		assert.True(t, d >= 450 && d <= 550, "delay %d outside [450, 550]", d)
		assert.Equal(t, []string{
			`0 user/message m1 "hi"`,
			`0 inbox/push m1 next-turn followup`,
			`0 turn/start 1`,
			`0 step/start 1.1`,
			`0 inbox/claim 1.1 m1 next-turn`,
			fmt.Sprintf(`100 llm/retry 1.1 #1 normal RATE_LIMIT delay=%dms`, d),
			fmt.Sprintf(`%d llm/retry-started 1.1 #1`, 100+d),
			fmt.Sprintf(`%d assistant/chunk 1.1 text "hello"`, 200+d),
			fmt.Sprintf(`%d assistant/chunk 1.1 finish completed`, 200+d),
			fmt.Sprintf(`%d assistant/message 1.1 completed`, 200+d),
			fmt.Sprintf(`%d step/end 1.1`, 200+d),
			fmt.Sprintf(`%d turn/end 1 completed`, 200+d),
		}, at(r.Events), "seed %d", seed)
	}
}

func TestScenarioStickyMaxTokens(t *testing.T) {
	for _, seed := range seedsToTry {
		r := simulate(t, "sticky-max-tokens", seed)
		assert.Equal(t, []string{
			`0 user/message m1 "write"`,
			`0 inbox/push m1 next-turn followup`,
			`0 turn/start 1`,
			`0 step/start 1.1`,
			`0 inbox/claim 1.1 m1 next-turn`,
			`100 assistant/chunk 1.1 text "the answer is"`,
			`150 user/message m2 "go on"`,
			`150 inbox/push m2 next-step steer`,
			`200 assistant/chunk 1.1 text " cut"`,
			`200 assistant/chunk 1.1 finish max-tokens`,
			`200 assistant/message 1.1 max-tokens`,
			`200 step/end 1.1`,
			`200 step/start 1.2`,
			`200 inbox/claim 1.2 m2 next-step`,
			`300 assistant/chunk 1.2 text "done"`,
			`300 assistant/chunk 1.2 finish completed`,
			`300 assistant/message 1.2 completed`,
			`300 step/end 1.2`,
			`300 turn/end 1 max-tokens`,
		}, at(r.Events), "seed %d", seed)
	}
}

func TestScenarioDrain(t *testing.T) {
	for _, seed := range seedsToTry {
		r := simulate(t, "drain", seed)
		assert.Equal(t, []string{
			`0 user/message m1 "run them"`,
			`0 inbox/push m1 next-turn followup`,
			`0 turn/start 1`,
			`0 step/start 1.1`,
			`0 inbox/claim 1.1 m1 next-turn`,
			`0 assistant/chunk 1.1 tool-call c1 slow`,
			`0 assistant/chunk 1.1 tool-call c2 slow`,
			`0 assistant/chunk 1.1 tool-call c3 slow`,
			`0 assistant/chunk 1.1 finish tool-calls`,
			`0 assistant/message 1.1 tool-calls`,
			`0 tool/call 1.1 c1 slow`,
			`1000 tool/result 1.1 c1 ok`,
			`1000 tool/call 1.1 c2 slow`,
			`1000 tool/result 1.1 c2 TOOL_ABORTED_BEFORE_DISPATCH`,
			`1000 tool/call 1.1 c3 slow`,
			`1000 tool/result 1.1 c3 TOOL_ABORTED_BEFORE_DISPATCH`,
			`1000 step/end 1.1`,
			`1000 turn/end 1 aborted(user)`,
		}, at(r.Events), "seed %d", seed)
		first := r.Events[11].Data.(harness.ToolResult)
		assert.Equal(t, `slow done: {"n":"c1"}`, first.Content, "the started call's real result")
		synthetic := r.Events[13].Data.(harness.ToolResult)
		assert.Equal(t, harness.ToolResult{
			Turn: 1, Step: 1, CallID: "c2", IsError: true, Content: "Error: tool call aborted before dispatch",
			Error: &harness.ToolError{Name: "AbortError", Code: "TOOL_ABORTED_BEFORE_DISPATCH", Message: "tool call aborted before dispatch"},
		}, synthetic)
	}
}

func TestScenarioFinally(t *testing.T) {
	for _, seed := range seedsToTry {
		r := simulate(t, "finally", seed)
		assert.Equal(t, []string{
			`0 user/message m1 "hi"`,
			`0 inbox/push m1 next-turn followup`,
			`0 turn/start 1`,
			`0 step/start 1.1`,
			`0 inbox/claim 1.1 m1 next-turn`,
			`100 assistant/chunk 1.1 text "par"`,
			`200 step/end 1.1`,
			`200 turn/end 1 error(UNKNOWN)`,
		}, at(r.Events), "seed %d", seed)
		end := r.Events[len(r.Events)-1].Data.(harness.TurnEnd)
		assert.Equal(t, &harness.Failure{Code: "UNKNOWN", Message: "read stream: read tcp: connection reset by peer"}, end.Reason.Error)
		require.Len(t, r.AgentErrors, 1, "agent/error is emitted to watchers")
		assert.ErrorIs(t, r.AgentErrors[0].Err, ErrStreamReset)
		assert.Equal(t, 1, r.AgentErrors[0].Turn)
	}
}

func TestScenarioCancelMidBackoff(t *testing.T) {
	for _, seed := range seedsToTry {
		r := simulate(t, "cancel-mid-backoff", seed)
		d := int64(retryDelays(r.Events)[0])
		assert.Greater(t, d, int64(200), "the cancel lands inside the wait")
		assert.Equal(t, []string{
			`0 user/message m1 "hi"`,
			`0 inbox/push m1 next-turn followup`,
			`0 turn/start 1`,
			`0 step/start 1.1`,
			`0 inbox/claim 1.1 m1 next-turn`,
			fmt.Sprintf(`100 llm/retry 1.1 #1 normal RATE_LIMIT delay=%dms`, d),
			`300 step/end 1.1`,
			`300 turn/end 1 aborted(user)`,
		}, at(r.Events), "seed %d", seed)
		assert.Empty(t, r.AgentErrors, "an abort is not an agent error")
		assert.Equal(t, int64(300), r.Report.VirtualElapsed.Milliseconds(), "nothing waits out the cancelled backoff")
	}
}

func TestScenarioRetryThenMaxTokens(t *testing.T) {
	for _, seed := range seedsToTry {
		r := simulate(t, "retry-then-max-tokens", seed)
		delays := retryDelays(r.Events)
		require.Len(t, delays, 2)
		d1, d2 := int64(delays[0]), int64(delays[1])
		s2 := 200 + d1 // step 2 starts when step 1's retried attempt ends
		assert.Equal(t, []string{
			`0 user/message m1 "write"`,
			`0 inbox/push m1 next-turn followup`,
			`0 turn/start 1`,
			`0 step/start 1.1`,
			`0 inbox/claim 1.1 m1 next-turn`,
			fmt.Sprintf(`100 llm/retry 1.1 #1 normal RATE_LIMIT delay=%dms`, d1),
			`400 user/message m2 "continue"`,
			`400 inbox/push m2 next-step steer`,
			fmt.Sprintf(`%d llm/retry-started 1.1 #1`, 100+d1),
			fmt.Sprintf(`%d assistant/chunk 1.1 text "truncated"`, s2),
			fmt.Sprintf(`%d assistant/chunk 1.1 finish max-tokens`, s2),
			fmt.Sprintf(`%d assistant/message 1.1 max-tokens`, s2),
			fmt.Sprintf(`%d step/end 1.1`, s2),
			fmt.Sprintf(`%d step/start 1.2`, s2),
			fmt.Sprintf(`%d inbox/claim 1.2 m2 next-step`, s2),
			fmt.Sprintf(`%d llm/retry 1.2 #1 normal RATE_LIMIT delay=%dms`, s2+100, d2),
			fmt.Sprintf(`%d llm/retry-started 1.2 #1`, s2+100+d2),
			fmt.Sprintf(`%d assistant/chunk 1.2 text "done"`, s2+200+d2),
			fmt.Sprintf(`%d assistant/chunk 1.2 finish completed`, s2+200+d2),
			fmt.Sprintf(`%d assistant/message 1.2 completed`, s2+200+d2),
			fmt.Sprintf(`%d step/end 1.2`, s2+200+d2),
			fmt.Sprintf(`%d turn/end 1 max-tokens`, s2+200+d2),
		}, at(r.Events), "seed %d", seed)
		first, second := r.Events[5].Data.(harness.LlmRetry), r.Events[15].Data.(harness.LlmRetry)
		assert.NotEqual(t, first.RetryID, second.RetryID, "two chains, two retryIds")
	}
}

func TestScenarioDisposedNoWake(t *testing.T) {
	for _, seed := range seedsToTry {
		r := simulate(t, "disposed-no-wake", seed)
		assert.Equal(t, []string{
			`0 user/message m1 "first"`,
			`0 inbox/push m1 next-turn followup`,
			`0 turn/start 1`,
			`0 step/start 1.1`,
			`0 inbox/claim 1.1 m1 next-turn`,
			`200 assistant/chunk 1.1 text "thinking"`,
			`300 user/message m2 "second"`,
			`300 inbox/push m2 next-turn followup`,
			`500 step/end 1.1`,
			`500 turn/end 1 aborted(disposed)`,
		}, at(r.Events), "seed %d: m2 stays in the inbox, unclaimed and uncleared, and no turn 2 starts", seed)
		err := r.ActionErrors["followup too late"]
		require.ErrorIs(t, err, harness.ErrDisposed)
		assert.Contains(t, err.Error(), "agent is disposed")
	}
}

func TestScenarioAlwaysMode(t *testing.T) {
	policy := harness.DefaultRetryPolicy()
	for _, seed := range seedsToTry {
		r := simulate(t, "always-mode", seed)
		var retries []harness.LlmRetry
		for _, e := range r.Events {
			if rr, ok := e.Data.(harness.LlmRetry); ok {
				retries = append(retries, rr)
			}
		}
		require.Len(t, retries, 8, "no limit applies")
		for i, rr := range retries {
			low, high := harness.DelayWindowMs(policy, i+1)
			assert.Equal(t, i+1, rr.Retry)
			assert.Nil(t, rr.MaxRetries, "always mode carries no maxRetries")
			assert.Equal(t, retries[0].RetryID, rr.RetryID, "one chain")
			assert.True(t, rr.DelayMs >= low && rr.DelayMs <= high, "retry %d: %g outside [%g, %g]", i+1, rr.DelayMs, low, high)
			assert.LessOrEqual(t, rr.DelayMs, policy.MaxDelayMs)
		}
		last := r.Events[len(r.Events)-1]
		assert.Equal(t, "turn/end 1 completed", Describe(last))
	}
}

func TestScenarioRetryAfter(t *testing.T) {
	for _, seed := range seedsToTry {
		r := simulate(t, "retry-after", seed)
		assert.Equal(t, []string{
			`0 user/message m1 "hi"`,
			`0 inbox/push m1 next-turn followup`,
			`0 turn/start 1`,
			`0 step/start 1.1`,
			`0 inbox/claim 1.1 m1 next-turn`,
			`100 llm/retry 1.1 #1 normal RATE_LIMIT delay=3000ms`,
			`3100 llm/retry-started 1.1 #1`,
			`3200 step/end 1.1`,
			`3200 turn/end 1 error(RATE_LIMIT)`,
		}, at(r.Events), "seed %d", seed)
		end := r.Events[len(r.Events)-1].Data.(harness.TurnEnd)
		assert.Equal(t, 60000.0, end.Reason.Error.ProviderRetryAfterMs, "the failure that made normal mode give up is the turn's error")
	}
}

// Every scenario, run twice with the same seed, gives the same bytes.
func TestScenariosAreDeterministic(t *testing.T) {
	for _, name := range ScenarioNames() {
		for _, seed := range seedsToTry {
			var logs [2]bytes.Buffer
			for i := range logs {
				r, err := SimulateScenario(name, seed)
				require.NoError(t, err)
				require.NoError(t, eventjson.Write(&logs[i], r.Events))
			}
			require.Equal(t, logs[0].String(), logs[1].String(), "%s seed %d", name, seed)
		}
	}
}

func TestEveryScenarioIsTested(t *testing.T) {
	assert.Equal(t, []string{
		"durable-before-wait", "sticky-max-tokens", "drain", "finally", "cancel-mid-backoff",
		"retry-then-max-tokens", "disposed-no-wake", "always-mode", "retry-after",
	}, ScenarioNames())
	for _, sc := range Scenarios() {
		assert.NotEmpty(t, strings.TrimSpace(sc.Doc), sc.Name)
	}
}
