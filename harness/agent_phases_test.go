package harness_test

// Phase and inbox stories: which sends wake the agent, how Cancel treats the inbox and the wake
// latch, what a turn claims, and the maintenance phase (spec §4, §5).

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/sim"
)

// completes is the end of a step whose answer is done("ok") (the scripted provider's answer once
// its script runs out), finishing turn turn at ms.
func completes(ms int64, turn, step int, text string) []string {
	return []string{
		fmt.Sprintf(`%d assistant/chunk %d.%d text %q`, ms, turn, step, text),
		fmt.Sprintf(`%d assistant/chunk %d.%d finish completed`, ms, turn, step),
		fmt.Sprintf(`%d assistant/message %d.%d completed`, ms, turn, step),
		fmt.Sprintf(`%d step/end %d.%d`, ms, turn, step),
		fmt.Sprintf(`%d turn/end %d completed`, ms, turn),
	}
}

// concat joins line groups.
func concat(groups ...[]string) []string {
	var out []string
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// statusAt notes at ms whether the agent reads as running.
func statusAt(at time.Duration) action {
	return action{At: at, Name: fmt.Sprint("status ", at), Do: func(r *run) error {
		r.mark(fmt.Sprintf("running=%t", r.Agent.Status().Running))
		return nil
	}}
}

func TestSteerWhileIdleStartsATurn(t *testing.T) {
	for _, seed := range seeds {
		r := play(t, seed, world{Actions: []action{steerAt(0, "look")}})
		assert.Equal(t, concat([]string{
			`0 user/message m1 "look"`,
			`0 inbox/push m1 next-step steer`,
			`0 turn/start 1`,
			`0 step/start 1.1`,
			`0 inbox/claim 1.1 m1 next-step`,
		}, completes(100, 1, 1, "ok")), lines(r.Events), "seed %d", seed)
	}
}

func TestInjectWhileIdleWaitsForTheNextFollowupsTurn(t *testing.T) {
	for _, seed := range seeds {
		r := play(t, seed, world{Actions: []action{
			injectAt(0, "context"),
			statusAt(250 * time.Millisecond),
			followupAt(500*time.Millisecond, "go"),
		}})
		assert.Equal(t, concat([]string{
			`0 user/message m1 "context"`,
			`0 inbox/push m1 next-step inject`,
			// nothing happens until a waking send
			`500 user/message m2 "go"`,
			`500 inbox/push m2 next-turn followup`,
			`500 turn/start 1`,
			`500 step/start 1.1`,
			`500 inbox/claim 1.1 m2 next-turn`,
			`500 inbox/claim 1.1 m1 next-step`, // the first step takes the injected message too
		}, completes(600, 1, 1, "ok")), lines(r.Events), "seed %d", seed)
		assert.Equal(t, []string{"250 running=false"}, r.Marks)
		assert.Equal(t, 1, r.Provider.inner.Served())
	}
}

func TestCancelWithoutKeepInboxClearsTheQueuedFollowup(t *testing.T) {
	for _, seed := range seeds {
		r := play(t, seed, world{
			Answers: []sim.Answer{slowText()},
			Actions: []action{followupAt(0, "first"), followupAt(100*time.Millisecond, "second"), cancelAt(300*time.Millisecond, harness.CauseUser, false)},
		})
		assert.Equal(t, []string{
			`0 user/message m1 "first"`,
			`0 inbox/push m1 next-turn followup`,
			`0 turn/start 1`,
			`0 step/start 1.1`,
			`0 inbox/claim 1.1 m1 next-turn`,
			`100 user/message m2 "second"`,
			`100 inbox/push m2 next-turn followup`,
			`200 assistant/chunk 1.1 text "thinking"`,
			`300 inbox/clear m2 next-turn`,
			`300 step/end 1.1`,
			`300 turn/end 1 aborted(user)`,
		}, lines(r.Events), "seed %d: no turn 2", seed)
		assert.Equal(t, 1, r.Provider.inner.Served())
	}
}

func TestCancelKeepingTheInboxLeavesTheFollowupForTheNextWakingSend(t *testing.T) {
	for _, seed := range seeds {
		r := play(t, seed, world{
			Answers: []sim.Answer{slowText()},
			Actions: []action{
				followupAt(0, "first"),
				followupAt(100*time.Millisecond, "second"),
				cancelAt(300*time.Millisecond, harness.CauseUser, true),
				statusAt(600 * time.Millisecond),
				steerAt(time.Second, "third"),
			},
		})
		assert.Equal(t, concat([]string{
			`0 user/message m1 "first"`,
			`0 inbox/push m1 next-turn followup`,
			`0 turn/start 1`,
			`0 step/start 1.1`,
			`0 inbox/claim 1.1 m1 next-turn`,
			`100 user/message m2 "second"`,
			`100 inbox/push m2 next-turn followup`,
			`200 assistant/chunk 1.1 text "thinking"`,
			`300 step/end 1.1`,
			`300 turn/end 1 aborted(user)`,
			// m2 waits, unclaimed, until a waking send arrives
			`1000 user/message m3 "third"`,
			`1000 inbox/push m3 next-step steer`,
			`1000 turn/start 2`,
			`1000 step/start 2.1`,
			`1000 inbox/claim 2.1 m2 next-turn`, // the kept followup
			`1000 inbox/claim 2.1 m3 next-step`, // and the steer that woke the agent
		}, completes(1100, 2, 1, "ok")), lines(r.Events), "seed %d", seed)
		assert.Equal(t, []string{"600 running=false"}, r.Marks)
		assert.Empty(t, ofType[harness.InboxClear](r.Events))
	}
}

func TestCancelKeepingTheInboxThenAFollowupRunsTheKeptOneFirst(t *testing.T) {
	for _, seed := range seeds {
		r := play(t, seed, world{
			Answers: []sim.Answer{slowText()},
			Actions: []action{
				followupAt(0, "first"),
				followupAt(100*time.Millisecond, "second"),
				cancelAt(300*time.Millisecond, harness.CauseUser, true),
				followupAt(time.Second, "third"),
			},
		})
		assert.Equal(t, concat([]string{
			`0 user/message m1 "first"`,
			`0 inbox/push m1 next-turn followup`,
			`0 turn/start 1`,
			`0 step/start 1.1`,
			`0 inbox/claim 1.1 m1 next-turn`,
			`100 user/message m2 "second"`,
			`100 inbox/push m2 next-turn followup`,
			`200 assistant/chunk 1.1 text "thinking"`,
			`300 step/end 1.1`,
			`300 turn/end 1 aborted(user)`,
			`1000 user/message m3 "third"`,
			`1000 inbox/push m3 next-turn followup`,
			`1000 turn/start 2`,
			`1000 step/start 2.1`,
			`1000 inbox/claim 2.1 m2 next-turn`, // one next-turn message per turn, oldest first
		}, completes(1100, 2, 1, "ok"), []string{
			`1100 turn/start 3`,
			`1100 step/start 3.1`,
			`1100 inbox/claim 3.1 m3 next-turn`,
		}, completes(1200, 3, 1, "ok")), lines(r.Events), "seed %d", seed)
	}
}

func TestSteerAfterAbortGoesToTheNextTurnAndItsLatchedWakeStartsIt(t *testing.T) {
	for _, seed := range seeds {
		r := play(t, seed, stuckRun(
			cancelAt(300*time.Millisecond, harness.CauseUser, false),
			steerAt(500*time.Millisecond, "change of plan"),
		))
		assert.Equal(t, concat(stuckOpening, []string{
			`500 user/message m2 "change of plan"`,
			`500 inbox/push m2 next-turn steer`, // the aborted turn takes no further step
			`1000 tool/result 1.1 c1 ok`,        // the started call drains
			`1000 step/end 1.1`,
			`1000 turn/end 1 aborted(user)`,
			`1000 turn/start 2`, // the latched wake, replayed
			`1000 step/start 2.1`,
			`1000 inbox/claim 2.1 m2 next-turn`,
		}, completes(1100, 2, 1, "ok")), lines(r.Events), "seed %d", seed)
	}
}

func TestFollowupsQueuedDuringATurnRunAsFurtherTurns(t *testing.T) {
	for _, seed := range seeds {
		r := play(t, seed, world{Actions: []action{
			followupAt(0, "one"),
			followupAt(20*time.Millisecond, "two"),
			followupAt(40*time.Millisecond, "three"),
		}})
		assert.Equal(t, concat([]string{
			`0 user/message m1 "one"`,
			`0 inbox/push m1 next-turn followup`,
			`0 turn/start 1`,
			`0 step/start 1.1`,
			`0 inbox/claim 1.1 m1 next-turn`,
			`20 user/message m2 "two"`,
			`20 inbox/push m2 next-turn followup`,
			`40 user/message m3 "three"`,
			`40 inbox/push m3 next-turn followup`,
		}, completes(100, 1, 1, "ok"), []string{
			`100 turn/start 2`,
			`100 step/start 2.1`,
			`100 inbox/claim 2.1 m2 next-turn`,
		}, completes(200, 2, 1, "ok"), []string{
			`200 turn/start 3`,
			`200 step/start 3.1`,
			`200 inbox/claim 3.1 m3 next-turn`,
		}, completes(300, 3, 1, "ok")), lines(r.Events), "seed %d", seed)
	}
}

// A cancel sent during turn 3 aborts turn 3 alone: each turn runs under its own cancellation, so
// turns 1 and 2 were unaffected, and the cancel does not leak into a later turn either.
func TestEachQueuedTurnRunsUnderAFreshCancellation(t *testing.T) {
	for _, seed := range seeds {
		r := play(t, seed, world{
			Answers: []sim.Answer{done("ok"), done("ok"), slowText()},
			Actions: []action{
				followupAt(0, "one"),
				followupAt(20*time.Millisecond, "two"),
				followupAt(40*time.Millisecond, "three"),
				cancelAt(250*time.Millisecond, harness.CauseUser, true),
				followupAt(time.Second, "four"),
			},
		})
		var ends []string
		for _, e := range ofType[harness.TurnEnd](r.Events) {
			ends = append(ends, fmt.Sprintf("%d %s", e.Turn, sim.DescribeReason(e.Reason)))
		}
		assert.Equal(t, []string{"1 completed", "2 completed", "3 aborted(user)", "4 completed"}, ends, "seed %d", seed)
		assert.Equal(t, `1100 turn/end 4 completed`, lines(r.Events)[len(r.Events)-1])
	}
}

func TestFollowupDuringMaintainIsLatchedAndReplayedWhenMaintainReturns(t *testing.T) {
	for _, seed := range seeds {
		var maintainErr error
		r := play(t, seed, world{Actions: []action{
			{At: 0, Name: "maintain", Do: func(r *run) error {
				r.RT.Go("maintainer", func() {
					maintainErr = r.Agent.Maintain(func(ctx context.Context) error {
						r.mark("maintaining")
						return r.RT.Sleep(500*time.Millisecond, ctx)
					})
					r.mark("maintained")
				})
				return nil
			}},
			followupAt(200*time.Millisecond, "hi"),
			statusAt(300 * time.Millisecond),
		}})
		assert.Equal(t, concat([]string{
			`200 user/message m1 "hi"`,
			`200 inbox/push m1 next-turn followup`,
			`500 turn/start 1`, // the latched wake, replayed when Maintain returns
			`500 step/start 1.1`,
			`500 inbox/claim 1.1 m1 next-turn`,
		}, completes(600, 1, 1, "ok")), lines(r.Events), "seed %d", seed)
		assert.Equal(t, []string{"0 maintaining", "300 running=false", "500 maintained"}, r.Marks, "maintenance reads as idle")
		assert.NoError(t, maintainErr)
	}
}

func TestMaintainWhileRunningOrMaintainingFailsWithErrNotIdle(t *testing.T) {
	for _, seed := range seeds {
		calls := 0
		fn := func(ctx context.Context) error { calls++; return nil }
		r := play(t, seed, world{
			Answers: []sim.Answer{slowText()},
			Actions: []action{
				followupAt(0, "hi"),
				{At: 100 * time.Millisecond, Name: "maintain while running", Do: func(r *run) error { return r.Agent.Maintain(fn) }},
				{At: 2 * time.Second, Name: "maintain", Do: func(r *run) error {
					r.RT.Go("maintainer", func() {
						_ = r.Agent.Maintain(func(ctx context.Context) error { return r.RT.Sleep(time.Second, ctx) })
					})
					return nil
				}},
				{At: 2500 * time.Millisecond, Name: "maintain while maintaining", Do: func(r *run) error { return r.Agent.Maintain(fn) }},
			},
		})
		assert.ErrorIs(t, r.ActionErrors["maintain while running"], harness.ErrNotIdle, "seed %d", seed)
		assert.ErrorIs(t, r.ActionErrors["maintain while maintaining"], harness.ErrNotIdle, "seed %d", seed)
		assert.Zero(t, calls, "fn never ran")
		assert.Equal(t, `1200 turn/end 1 completed`, lines(r.Events)[len(r.Events)-1], "the running turn was not disturbed")
	}
}

func TestCancelDuringMaintainCancelsItsContextWithTheCause(t *testing.T) {
	for _, seed := range seeds {
		var maintainErr, cause error
		r := play(t, seed, world{Actions: []action{
			{At: 0, Name: "maintain", Do: func(r *run) error {
				r.RT.Go("maintainer", func() {
					maintainErr = r.Agent.Maintain(func(ctx context.Context) error {
						err := r.RT.Sleep(time.Second, ctx)
						cause = context.Cause(ctx)
						r.mark("fn returns")
						return err
					})
				})
				return nil
			}},
			{At: 300 * time.Millisecond, Name: "cancel", Do: func(r *run) error {
				return r.Agent.Cancel(harness.CancelCause{Kind: harness.CauseHook, Reason: "compaction took too long"}, false)
			}},
		}})
		want := harness.CancelCause{Kind: harness.CauseHook, Reason: "compaction took too long"}
		assert.Equal(t, want, cause, "seed %d", seed)
		assert.Equal(t, want, maintainErr, "Maintain returns fn's error")
		assert.Equal(t, []string{"300 fn returns"}, r.Marks, "the cancel ends the wait at its instant")
		assert.Empty(t, r.Events)
	}
}

// The replay happens only if the inbox still has work: a cancel during maintenance that clears
// the inbox also clears the latch, so no turn follows.
func TestCancelDuringMaintainClearsTheLatchedFollowup(t *testing.T) {
	for _, seed := range seeds {
		r := play(t, seed, world{Actions: []action{
			{At: 0, Name: "maintain", Do: func(r *run) error {
				r.RT.Go("maintainer", func() {
					_ = r.Agent.Maintain(func(ctx context.Context) error {
						_ = r.RT.Sleep(time.Second) // ignores the cancel: maintenance runs to its end
						return nil
					})
					r.mark("maintained")
				})
				return nil
			}},
			followupAt(200*time.Millisecond, "hi"),
			cancelAt(400*time.Millisecond, harness.CauseUser, false),
		}})
		assert.Equal(t, []string{
			`200 user/message m1 "hi"`,
			`200 inbox/push m1 next-turn followup`,
			`400 inbox/clear m1 next-turn`,
		}, lines(r.Events), "seed %d: no turn after maintenance", seed)
		assert.Equal(t, []string{"1000 maintained"}, r.Marks)
	}
}

// Never after a disposed cancellation: a followup latched during maintenance is not replayed
// when the agent was disposed meanwhile.
func TestDisposeDuringMaintainReplaysNoLatchedWake(t *testing.T) {
	for _, seed := range seeds {
		var maintainErr error
		r := play(t, seed, world{Actions: []action{
			{At: 0, Name: "maintain", Do: func(r *run) error {
				r.RT.Go("maintainer", func() {
					maintainErr = r.Agent.Maintain(func(ctx context.Context) error { return r.RT.Sleep(time.Second, ctx) })
					r.mark("maintained")
				})
				return nil
			}},
			followupAt(200*time.Millisecond, "hi"),
			{At: 400 * time.Millisecond, Name: "dispose", Do: func(r *run) error { return r.Agent.Dispose() }},
		}})
		assert.Equal(t, []string{
			`200 user/message m1 "hi"`,
			`200 inbox/push m1 next-turn followup`,
		}, lines(r.Events), "seed %d: m1 stays queued, and no turn starts", seed)
		assert.Equal(t, []string{"400 maintained"}, r.Marks)
		require.Error(t, maintainErr)
		assert.Equal(t, harness.CancelCause{Kind: harness.CauseDisposed}, maintainErr)
		assert.Empty(t, r.ActionErrors)
	}
}

// stuckRun is a story whose only answer calls a tool that takes a second and ignores
// cancellation, so an aborted turn keeps running (draining) until 1000.
func stuckRun(actions ...action) world {
	return world{
		Answers: []sim.Answer{toolCalls(call("c1", "stuck", "{}"))},
		Tools: func(rt harness.Runtime) []harness.Tool {
			return []harness.Tool{sim.SleepTool(rt, "stuck", time.Second, false, false)}
		},
		Actions: append([]action{followupAt(0, "run")}, actions...),
	}
}

// stuckOpening is the start of stuckRun, up to the dispatch of the stuck call.
var stuckOpening = []string{
	`0 user/message m1 "run"`,
	`0 inbox/push m1 next-turn followup`,
	`0 turn/start 1`,
	`0 step/start 1.1`,
	`0 inbox/claim 1.1 m1 next-turn`,
	`0 assistant/chunk 1.1 tool-call c1 stuck`,
	`0 assistant/chunk 1.1 finish tool-calls`,
	`0 assistant/message 1.1 tool-calls`,
	`0 tool/call 1.1 c1 stuck`,
}

// A wake latched after an abort is replayed only if the inbox still has work: a later Cancel
// that clears the inbox clears the latch with it.
func TestCancelClearingTheInboxAfterAnAbortDropsTheLatchedWake(t *testing.T) {
	for _, seed := range seeds {
		r := play(t, seed, stuckRun(
			cancelAt(300*time.Millisecond, harness.CauseUser, true),
			followupAt(500*time.Millisecond, "later"),
			cancelAt(700*time.Millisecond, harness.CauseUser, false),
		))
		assert.Equal(t, concat(stuckOpening, []string{
			`500 user/message m2 "later"`,
			`500 inbox/push m2 next-turn followup`,
			`700 inbox/clear m2 next-turn`,
			`1000 tool/result 1.1 c1 ok`,
			`1000 step/end 1.1`,
			`1000 turn/end 1 aborted(user)`,
		}), lines(r.Events), "seed %d: no turn 2", seed)
	}
}

// Never after a disposed cancellation: a wake latched after an abort is dropped when the agent is
// disposed before the aborted turn has finished draining.
func TestDisposeAfterAnAbortDropsTheLatchedWake(t *testing.T) {
	for _, seed := range seeds {
		r := play(t, seed, stuckRun(
			cancelAt(300*time.Millisecond, harness.CauseUser, true),
			followupAt(500*time.Millisecond, "later"),
			action{At: 700 * time.Millisecond, Name: "dispose", Do: func(r *run) error { return r.Agent.Dispose() }},
		))
		assert.Equal(t, concat(stuckOpening, []string{
			`500 user/message m2 "later"`,
			`500 inbox/push m2 next-turn followup`,
			`1000 tool/result 1.1 c1 ok`,
			`1000 step/end 1.1`,
			`1000 turn/end 1 aborted(user)`, // the first cancellation's cause stands
		}), lines(r.Events), "seed %d: m2 stays queued and no turn 2 starts", seed)
		assert.Empty(t, r.ActionErrors)
	}
}

// The aborted turn records the cancellation's cause, whichever it is.
func TestAbortedTurnRecordsTheCancelCause(t *testing.T) {
	cases := []struct {
		cause harness.CancelCause
		want  string
	}{
		{harness.CancelCause{Kind: harness.CauseUser}, "aborted(user)"},
		{harness.CancelCause{Kind: harness.CauseParent}, "aborted(parent)"},
		{harness.CancelCause{Kind: harness.CauseHook, Reason: "policy hook said stop"}, "aborted(hook: policy hook said stop)"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			for _, seed := range seeds {
				r := play(t, seed, world{
					Answers: []sim.Answer{slowText()},
					Actions: []action{followupAt(0, "hi"), {At: 300 * time.Millisecond, Name: "cancel", Do: func(r *run) error {
						return r.Agent.Cancel(tc.cause, false)
					}}},
				})
				assert.Equal(t, concat(opening("hi"), []string{
					`200 assistant/chunk 1.1 text "thinking"`,
					`300 step/end 1.1`,
					`300 turn/end 1 ` + tc.want,
				}), lines(r.Events), "seed %d", seed)
				assert.Equal(t, &tc.cause, lastTurnEnd(t, r.Events).Reason.Reason)
				assert.Empty(t, r.AgentErrors, "an abort is not an agent error")
			}
		})
	}
}

// Dispose mid-turn keeps the inbox but starts no further turn: the queued followup stays
// unclaimed and later sends fail.
func TestDisposeMidTurnAbortsItAndNoTurnFollows(t *testing.T) {
	for _, seed := range seeds {
		r := play(t, seed, world{
			Answers: []sim.Answer{slowText()},
			Actions: []action{
				followupAt(0, "hi"),
				followupAt(100*time.Millisecond, "queued"),
				{At: 300 * time.Millisecond, Name: "dispose", Do: func(r *run) error { return r.Agent.Dispose() }},
				followupAt(time.Second, "too late"),
			},
		})
		assert.Equal(t, concat(opening("hi"), []string{
			`100 user/message m2 "queued"`,
			`100 inbox/push m2 next-turn followup`,
			`200 assistant/chunk 1.1 text "thinking"`,
			`300 step/end 1.1`,
			`300 turn/end 1 aborted(disposed)`,
		}), lines(r.Events), "seed %d: m2 is neither claimed nor cleared", seed)
		assert.ErrorIs(t, r.ActionErrors["followup too late"], harness.ErrDisposed)
		assert.Len(t, r.ActionErrors, 1)
	}
}
