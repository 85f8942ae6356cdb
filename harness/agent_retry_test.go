package harness_test

// Retry stories: the llm-retry plugin's budget, Retry-After, always mode against a downstream
// compaction handler, the plugin's lifetime, and the chunks of failed attempts (spec §3).

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/sim"
)

// retries returns the llm/retry payloads of the log, in order.
func retries(events []harness.Event) []harness.LlmRetry { return ofType[harness.LlmRetry](events) }

// alwaysPolicy is the default policy in always mode.
func alwaysPolicy() *harness.RetryPolicy {
	p := harness.DefaultRetryPolicy()
	p.Mode, p.MaxRetries = harness.ModeAlways, 0
	return &p
}

// failAfter100 is a request that fails with err 100 ms after it is sent.
func failAfter100(err error) sim.Answer { return sim.Fail(100*time.Millisecond, err) }

// opening is how every single-followup story starts: m1 sent at 0 opens turn 1.
func opening(text string) []string {
	return []string{
		fmt.Sprintf(`0 user/message m1 %q`, text),
		`0 inbox/push m1 next-turn followup`,
		`0 turn/start 1`,
		`0 step/start 1.1`,
		`0 inbox/claim 1.1 m1 next-turn`,
	}
}

// assertInWindow checks that a local delay for retry n lies within the policy's jitter window.
func assertInWindow(t *testing.T, policy harness.RetryPolicy, n int, delayMs float64) {
	t.Helper()
	low, high := harness.DelayWindowMs(policy, n)
	assert.True(t, delayMs >= low && delayMs <= high, "retry %d: delay %g outside [%g, %g]", n, delayMs, low, high)
}

func TestDisposeRetryPluginMidBackoffEndsTheWaitWithNoRetry(t *testing.T) {
	for _, seed := range seeds {
		r := play(t, seed, world{
			Answers: []sim.Answer{
				failAfter100(sim.Failure(harness.CodeRateLimit, "slow down")),
				failAfter100(sim.Failure(harness.CodeRateLimit, "slow down again")),
			},
			Actions: []action{
				followupAt(0, "hi"),
				{At: 300 * time.Millisecond, Name: "dispose plugin", Do: func(r *run) error { r.Agent.DisposeRetryPlugin(); return nil }},
				followupAt(time.Second, "again"),
			},
		})
		rs := retries(r.Events)
		require.Len(t, rs, 1, "seed %d", seed)
		d := int64(rs[0].DelayMs)
		require.Greater(t, d, int64(200), "the disposal lands inside the wait")
		assert.Equal(t, append(opening("hi"),
			fmt.Sprintf(`100 llm/retry 1.1 #1 normal RATE_LIMIT delay=%dms`, d),
			`300 step/end 1.1`, // the wait ends at the disposal: no llm/retry-started
			`300 turn/end 1 error(RATE_LIMIT)`,
			`1000 user/message m2 "again"`,
			`1000 inbox/push m2 next-turn followup`,
			`1000 turn/start 2`,
			`1000 step/start 2.1`,
			`1000 inbox/claim 2.1 m2 next-turn`,
			`1100 step/end 2.1`, // a disposed plugin retries nothing: no llm/retry at all
			`1100 turn/end 2 error(RATE_LIMIT)`,
		), lines(r.Events), "seed %d", seed)
		ends := ofType[harness.TurnEnd](r.Events)
		assert.Equal(t, &harness.Failure{Code: harness.CodeRateLimit, Message: "slow down"}, ends[0].Reason.Error, "turn 1 ends with the failure, not aborted")
		assert.Equal(t, &harness.Failure{Code: harness.CodeRateLimit, Message: "slow down again"}, ends[1].Reason.Error)
		assert.Empty(t, ofType[harness.LlmRetryStarted](r.Events))
		assert.Equal(t, []string{"0 1.1 attempt 1", "1000 2.1 attempt 1"}, r.Provider.Requests)
	}
}

func TestAlwaysModeDownstreamCompactionWinsThenAlwaysRetriesItself(t *testing.T) {
	for _, seed := range seeds {
		cwe := sim.Failure(harness.CodeContextWindowExceeded, "prompt is too long")
		r := play(t, seed, world{
			Policy:   alwaysPolicy(),
			Handlers: []harness.RequestErrorHandler{&harness.CompactionHandler{BudgetPerStep: 1}},
			Answers:  []sim.Answer{failAfter100(cwe), failAfter100(cwe), done("fits")},
			Actions:  []action{followupAt(0, "hi")},
		})
		rs := retries(r.Events)
		require.Len(t, rs, 1, "seed %d: only the second failure is retried by llm-retry", seed)
		d := int64(rs[0].DelayMs)
		assertInWindow(t, *alwaysPolicy(), 1, rs[0].DelayMs)
		assert.Nil(t, rs[0].MaxRetries, "always mode carries no maxRetries")
		assert.Equal(t, append(opening("hi"),
			// 100: the first CWE is compacted and retried at once, without an event
			fmt.Sprintf(`200 llm/retry 1.1 #1 always CONTEXT_WINDOW_EXCEEDED delay=%dms`, d),
			fmt.Sprintf(`%d llm/retry-started 1.1 #1`, 200+d),
			fmt.Sprintf(`%d assistant/chunk 1.1 text "fits"`, 300+d),
			fmt.Sprintf(`%d assistant/chunk 1.1 finish completed`, 300+d),
			fmt.Sprintf(`%d assistant/message 1.1 completed`, 300+d),
			fmt.Sprintf(`%d step/end 1.1`, 300+d),
			fmt.Sprintf(`%d turn/end 1 completed`, 300+d),
		), lines(r.Events), "seed %d", seed)
		assert.Equal(t, []string{
			"0 1.1 attempt 1",
			"100 1.1 attempt 2", // the downstream retry: same instant, no delay
			fmt.Sprintf("%d 1.1 attempt 3", 200+d),
		}, r.Provider.Requests, "seed %d", seed)
	}
}

func TestNormalModeCompactionRetriesOnceThenContextWindowExceededEndsTheTurn(t *testing.T) {
	for _, seed := range seeds {
		cwe := sim.Failure(harness.CodeContextWindowExceeded, "prompt is too long")
		r := play(t, seed, world{
			Handlers: []harness.RequestErrorHandler{&harness.CompactionHandler{BudgetPerStep: 1}},
			Answers:  []sim.Answer{failAfter100(cwe), failAfter100(cwe)},
			Actions:  []action{followupAt(0, "hi")},
		})
		assert.Equal(t, append(opening("hi"),
			`200 step/end 1.1`,
			`200 turn/end 1 error(CONTEXT_WINDOW_EXCEEDED)`,
		), lines(r.Events), "seed %d: no llm/retry", seed)
		assert.Equal(t, []string{"0 1.1 attempt 1", "100 1.1 attempt 2"}, r.Provider.Requests)
		assert.Equal(t, &harness.Failure{Code: harness.CodeContextWindowExceeded, Message: "prompt is too long"}, lastTurnEnd(t, r.Events).Reason.Error)
	}
}

func TestNormalModeBudgetTwoRetriesThreeRequests(t *testing.T) {
	for _, seed := range seeds {
		r := play(t, seed, world{
			Answers: []sim.Answer{
				failAfter100(sim.Failure(harness.CodeRateLimit, "limited 1")),
				failAfter100(sim.Failure(harness.CodeRateLimit, "limited 2")),
				failAfter100(sim.Failure(harness.CodeRateLimit, "limited 3")),
				done("never asked for"),
			},
			Actions: []action{followupAt(0, "hi")},
		})
		rs := retries(r.Events)
		require.Len(t, rs, 2, "seed %d", seed)
		d1, d2 := int64(rs[0].DelayMs), int64(rs[1].DelayMs)
		assert.Equal(t, append(opening("hi"),
			fmt.Sprintf(`100 llm/retry 1.1 #1 normal RATE_LIMIT delay=%dms`, d1),
			fmt.Sprintf(`%d llm/retry-started 1.1 #1`, 100+d1),
			fmt.Sprintf(`%d llm/retry 1.1 #2 normal RATE_LIMIT delay=%dms`, 200+d1, d2),
			fmt.Sprintf(`%d llm/retry-started 1.1 #2`, 200+d1+d2),
			fmt.Sprintf(`%d step/end 1.1`, 300+d1+d2),
			fmt.Sprintf(`%d turn/end 1 error(RATE_LIMIT)`, 300+d1+d2),
		), lines(r.Events), "seed %d", seed)
		policy := harness.DefaultRetryPolicy()
		for i, rr := range rs {
			assert.Equal(t, rs[0].RetryID, rr.RetryID, "one chain, one retryId")
			require.NotNil(t, rr.MaxRetries)
			assert.Equal(t, 2, *rr.MaxRetries)
			assert.Equal(t, fmt.Sprintf("limited %d", i+1), rr.Failure.Message)
			assert.Equal(t, providerName, rr.Provider)
			assertInWindow(t, policy, i+1, rr.DelayMs)
		}
		assert.Equal(t, 3, r.Provider.inner.Served(), "maxRetries 2 means three requests")
		assert.Equal(t, &harness.Failure{Code: harness.CodeRateLimit, Message: "limited 3"}, lastTurnEnd(t, r.Events).Reason.Error,
			"the turn carries the last attempt's failure")
	}
}

func TestNormalModeDoesNotRetryANonRetryableCode(t *testing.T) {
	for _, seed := range seeds {
		r := play(t, seed, world{
			Answers: []sim.Answer{failAfter100(sim.Failure(harness.CodeContextWindowExceeded, "prompt is too long")), done("never asked for")},
			Actions: []action{followupAt(0, "hi")},
		})
		assert.Equal(t, append(opening("hi"),
			`100 step/end 1.1`,
			`100 turn/end 1 error(CONTEXT_WINDOW_EXCEEDED)`,
		), lines(r.Events), "seed %d", seed)
		assert.Equal(t, 1, r.Provider.inner.Served())
	}
}

func TestRetryAfterEqualToMaxDelayIsUsedExactly(t *testing.T) {
	for _, seed := range seeds {
		r := play(t, seed, world{
			Answers: []sim.Answer{failAfter100(sim.RetryAfter(10 * time.Second)), done("hello")},
			Actions: []action{followupAt(0, "hi")},
		})
		assert.Equal(t, append(opening("hi"),
			`100 llm/retry 1.1 #1 normal RATE_LIMIT delay=10000ms`,
			`10100 llm/retry-started 1.1 #1`,
			`10200 assistant/chunk 1.1 text "hello"`,
			`10200 assistant/chunk 1.1 finish completed`,
			`10200 assistant/message 1.1 completed`,
			`10200 step/end 1.1`,
			`10200 turn/end 1 completed`,
		), lines(r.Events), "seed %d", seed)
		assert.Equal(t, 10000.0, retries(r.Events)[0].Failure.ProviderRetryAfterMs)
	}
}

func TestRetryAfterThatIsNotPositiveAndFiniteIsIgnored(t *testing.T) {
	hints := map[string]float64{"zero": 0, "negative": -3000, "infinite": math.Inf(1), "NaN": math.NaN()}
	for name, hintMs := range hints {
		t.Run(name, func(t *testing.T) {
			for _, seed := range seeds {
				failure := &harness.LlmError{Failure: harness.Failure{
					Code: harness.CodeRateLimit, Message: "rate limited", Status: 429, ProviderRetryAfterMs: hintMs,
				}}
				r := play(t, seed, world{
					Answers: []sim.Answer{failAfter100(failure), done("hello")},
					Actions: []action{followupAt(0, "hi")},
				})
				rs := retries(r.Events)
				require.Len(t, rs, 1)
				d := int64(rs[0].DelayMs)
				assertInWindow(t, harness.DefaultRetryPolicy(), 1, rs[0].DelayMs)
				assert.Equal(t, append(opening("hi"),
					fmt.Sprintf(`100 llm/retry 1.1 #1 normal RATE_LIMIT delay=%dms`, d),
					fmt.Sprintf(`%d llm/retry-started 1.1 #1`, 100+d),
					fmt.Sprintf(`%d assistant/chunk 1.1 text "hello"`, 200+d),
					fmt.Sprintf(`%d assistant/chunk 1.1 finish completed`, 200+d),
					fmt.Sprintf(`%d assistant/message 1.1 completed`, 200+d),
					fmt.Sprintf(`%d step/end 1.1`, 200+d),
					fmt.Sprintf(`%d turn/end 1 completed`, 200+d),
				), lines(r.Events), "seed %d", seed)
				assert.Equal(t, harness.Failure{Code: harness.CodeRateLimit, Message: "rate limited", Status: 429}, rs[0].Failure,
					"the recorded failure carries no hint")
				encoded, err := json.Marshal(rs[0].Failure)
				require.NoError(t, err)
				assert.NotContains(t, string(encoded), "providerRetryAfterMs")
			}
		})
	}
}

func TestAlwaysModeRetryAfterAboveMaxDelayUsesTheLocalDelay(t *testing.T) {
	for _, seed := range seeds {
		r := play(t, seed, world{
			Policy:  alwaysPolicy(),
			Answers: []sim.Answer{failAfter100(sim.RetryAfter(60 * time.Second)), done("hello")},
			Actions: []action{followupAt(0, "hi")},
		})
		rs := retries(r.Events)
		require.Len(t, rs, 1)
		d := int64(rs[0].DelayMs)
		assertInWindow(t, *alwaysPolicy(), 1, rs[0].DelayMs)
		assert.Equal(t, append(opening("hi"),
			fmt.Sprintf(`100 llm/retry 1.1 #1 always RATE_LIMIT delay=%dms`, d),
			fmt.Sprintf(`%d llm/retry-started 1.1 #1`, 100+d),
			fmt.Sprintf(`%d assistant/chunk 1.1 text "hello"`, 200+d),
			fmt.Sprintf(`%d assistant/chunk 1.1 finish completed`, 200+d),
			fmt.Sprintf(`%d assistant/message 1.1 completed`, 200+d),
			fmt.Sprintf(`%d step/end 1.1`, 200+d),
			fmt.Sprintf(`%d turn/end 1 completed`, 200+d),
		), lines(r.Events), "seed %d", seed)
		assert.Equal(t, 60000.0, rs[0].Failure.ProviderRetryAfterMs, "a valid hint is recorded even when not used")
	}
}

func TestChunksOfAFailedAttemptStayInTheLogButNotInTheMessage(t *testing.T) {
	for _, seed := range seeds {
		broken := sim.Answer{
			Beats: []sim.Beat{
				{After: 100 * time.Millisecond, Chunk: harness.Chunk{Kind: harness.ChunkText, Text: "Hel"}},
				{After: 100 * time.Millisecond, Chunk: harness.Chunk{Kind: harness.ChunkText, Text: "lo"}},
			},
			FailAfter: 2, FailDelay: 50 * time.Millisecond, Err: sim.Failure(harness.CodeServer, "stream broke"),
		}
		r := play(t, seed, world{
			Answers: []sim.Answer{broken, done("Bye")},
			Actions: []action{followupAt(0, "hi")},
		})
		rs := retries(r.Events)
		require.Len(t, rs, 1)
		d := int64(rs[0].DelayMs)
		assert.Equal(t, append(opening("hi"),
			`100 assistant/chunk 1.1 text "Hel"`,
			`200 assistant/chunk 1.1 text "lo"`,
			`250 llm/retry 1.1 #1 normal SERVER delay=`+fmt.Sprint(d)+`ms`,
			fmt.Sprintf(`%d llm/retry-started 1.1 #1`, 250+d),
			fmt.Sprintf(`%d assistant/chunk 1.1 text "Bye"`, 350+d),
			fmt.Sprintf(`%d assistant/chunk 1.1 finish completed`, 350+d),
			fmt.Sprintf(`%d assistant/message 1.1 completed`, 350+d),
			fmt.Sprintf(`%d step/end 1.1`, 350+d),
			fmt.Sprintf(`%d turn/end 1 completed`, 350+d),
		), lines(r.Events), "seed %d", seed)
		messages := ofType[harness.AssistantMessage](r.Events)
		require.Len(t, messages, 1)
		assert.Equal(t, harness.AssembledMessage{Blocks: []harness.Block{{Type: harness.BlockText, Text: "Bye"}}}, messages[0].Message,
			"only the successful attempt's text")
	}
}

func TestCancelMidBackoffEndsTheWaitAtThatInstant(t *testing.T) {
	for _, seed := range seeds {
		r := play(t, seed, world{
			Answers: []sim.Answer{failAfter100(sim.Failure(harness.CodeRateLimit, "slow down"))},
			Actions: []action{followupAt(0, "hi"), {At: 300 * time.Millisecond, Name: "cancel", Do: func(r *run) error {
				return r.Agent.Cancel(harness.CancelCause{Kind: harness.CauseHook, Reason: "budget hook"}, false)
			}}},
		})
		rs := retries(r.Events)
		require.Len(t, rs, 1)
		d := int64(rs[0].DelayMs)
		require.Greater(t, d, int64(200), "the cancel lands inside the wait")
		assert.Equal(t, append(opening("hi"),
			fmt.Sprintf(`100 llm/retry 1.1 #1 normal RATE_LIMIT delay=%dms`, d),
			`300 step/end 1.1`, // no llm/retry-started, and no wait to the end of the delay
			`300 turn/end 1 aborted(hook: budget hook)`,
		), lines(r.Events), "seed %d", seed)
		assert.Equal(t, int64(300), r.Report.VirtualElapsed.Milliseconds(), "nothing waits out the cancelled backoff")
		assert.Equal(t, 1, r.Provider.inner.Served())
	}
}

func TestAlwaysModeRetriesPastAnyBudget(t *testing.T) {
	for _, seed := range seeds {
		var answers []sim.Answer
		for i := range 5 {
			answers = append(answers, failAfter100(sim.Failure(harness.CodeServer, fmt.Sprint("overloaded ", i+1))))
		}
		r := play(t, seed, world{Policy: alwaysPolicy(), Answers: append(answers, done("at last")), Actions: []action{followupAt(0, "hi")}})
		rs := retries(r.Events)
		require.Len(t, rs, 5, "seed %d", seed)
		for i, rr := range rs {
			assert.Equal(t, i+1, rr.Retry)
			assert.Equal(t, rs[0].RetryID, rr.RetryID, "one chain")
			assert.Nil(t, rr.MaxRetries)
			assertInWindow(t, *alwaysPolicy(), i+1, rr.DelayMs)
		}
		assert.Len(t, ofType[harness.LlmRetryStarted](r.Events), 5)
		assert.Equal(t, 6, r.Provider.inner.Served())
		assert.Equal(t, "turn/end 1 completed", sim.Describe(r.Events[len(r.Events)-1]))
	}
}

func TestNormalModeGivesUpOnARetryAfterAboveMaxDelay(t *testing.T) {
	for _, seed := range seeds {
		r := play(t, seed, world{
			Answers: []sim.Answer{failAfter100(sim.RetryAfter(10*time.Second + time.Millisecond)), done("never asked for")},
			Actions: []action{followupAt(0, "hi")},
		})
		assert.Equal(t, append(opening("hi"),
			`100 step/end 1.1`,
			`100 turn/end 1 error(RATE_LIMIT)`,
		), lines(r.Events), "seed %d: no llm/retry", seed)
		assert.Equal(t, 10001.0, lastTurnEnd(t, r.Events).Reason.Error.ProviderRetryAfterMs)
	}
}
