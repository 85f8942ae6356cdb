package harness_test

// Stories for the 2026-12-01 revisions of the spec (harness.md §9), each a bug the simulator once
// missed: refused appends that open work never spin, observers may call back, a max-tokens step
// commits text only, cancel wins over what it cleared, disposal ends the retry chain, AgentError
// names its step, and a policy's codes are the agent's own copy.

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/sim"
)

// typeRefusingStore refuses every append of the event types in refuse, while refuse holds them.
type typeRefusingStore struct {
	refuse  map[string]bool
	refused int
}

var errStoreDown = errors.New("store down")

func (s *typeRefusingStore) Append(e harness.Event) error {
	if s.refuse[e.Type] {
		s.refused++
		return errStoreDown
	}
	return nil
}

// A store that keeps refusing step/start ends the turn in error once: the message stays queued,
// agent/error names the refusal, the agent goes idle, and only the next wake serves the message.
func TestRefusedStepStartDoesNotSpinTheDriver(t *testing.T) {
	for _, seed := range seeds {
		store := &typeRefusingStore{refuse: map[string]bool{harness.TypeStepStart: true}}
		r := play(t, seed, world{Store: store, Answers: []sim.Answer{done("ok")}, Actions: []action{
			followupAt(0, "hi"),
			{At: time.Second, Name: "store back, wake", Do: func(r *run) error {
				r.mark(fmt.Sprintf("running=%t", r.Agent.Status().Running))
				store.refuse = nil
				r.Agent.Wake()
				return nil
			}},
		}})
		assert.Equal(t, concat([]string{
			`0 user/message m1 "hi"`,
			`0 inbox/push m1 next-turn followup`,
			`0 turn/start 1`,
			`0 turn/end 1 error(UNKNOWN)`,
			`1000 turn/start 2`,
			`1000 step/start 2.1`,
			`1000 inbox/claim 2.1 m1 next-turn`,
		}, completes(1100, 2, 1, "ok")), lines(r.Events), "seed %d", seed)
		assert.Equal(t, 1, store.refused, "seed %d: one refused step/start, not a loop of them", seed)
		assert.Equal(t, []string{"1000 running=false"}, r.Marks, "seed %d: idle while the store was down", seed)
		require.Len(t, r.AgentErrors, 1, "seed %d", seed)
		assert.Equal(t, 1, r.AgentErrors[0].Turn)
		assert.ErrorIs(t, r.AgentErrors[0].Err, errStoreDown)
	}
}

// A refused turn/start opens no turn: agent/error, idle, the message queued for the next send.
func TestRefusedTurnStartWaitsForTheNextWake(t *testing.T) {
	for _, seed := range seeds {
		store := &typeRefusingStore{refuse: map[string]bool{harness.TypeTurnStart: true}}
		r := play(t, seed, world{Store: store, Answers: []sim.Answer{done("ok")}, Actions: []action{
			followupAt(0, "hi"),
			{At: 500 * time.Millisecond, Name: "store back", Do: func(r *run) error { store.refuse = nil; return nil }},
			followupAt(time.Second, "again"),
		}})
		assert.Equal(t, concat([]string{
			`0 user/message m1 "hi"`,
			`0 inbox/push m1 next-turn followup`,
			`1000 user/message m2 "again"`,
			`1000 inbox/push m2 next-turn followup`,
			`1000 turn/start 1`,
			`1000 step/start 1.1`,
			`1000 inbox/claim 1.1 m1 next-turn`,
		}, completes(1100, 1, 1, "ok")[:4], []string{
			`1100 turn/end 1 completed`,
			`1100 turn/start 2`,
			`1100 step/start 2.1`,
			`1100 inbox/claim 2.1 m2 next-turn`,
		}, completes(1200, 2, 1, "ok")), lines(r.Events), "seed %d", seed)
		assert.Equal(t, 1, store.refused, "seed %d", seed)
		require.Len(t, r.AgentErrors, 1, "seed %d", seed)
		assert.Equal(t, "turn/start", r.AgentErrors[0].Source)
	}
}

// An observer may call the agent back: cancel (with the inbox holding a message, so the cancel
// appends inbox/clear), send, and append; a panicking observer is reported and the turn settles.
func TestObserversMayCallBackAndPanicsAreContained(t *testing.T) {
	for _, seed := range seeds {
		var appendErr error
		r := play(t, seed, world{Answers: []sim.Answer{slowText(), done("second")}, Actions: []action{
			{At: 0, Name: "observe", Do: func(r *run) error {
				a := r.Agent
				a.Session().Observe(func(e harness.Event) {
					switch d := e.Data.(type) {
					case harness.AssistantChunk:
						if d.Turn == 1 && d.Chunk.Kind == harness.ChunkText {
							panic("observer exploded")
						}
					case harness.StepEnd:
						if d.Turn == 1 {
							_, appendErr = a.Session().Append(harness.TurnStart{Turn: 9}) // refused: a turn is open
							if _, err := a.Followup("from the observer"); err != nil {
								r.ActionErrors["observer send"] = err
							}
						}
					case harness.TurnStart:
						if d.Turn == 2 {
							if err := a.Cancel(harness.CancelCause{Kind: harness.CauseUser}, false); err != nil {
								r.ActionErrors["observer cancel"] = err
							}
						}
					}
				})
				return nil
			}},
			followupAt(0, "first"),
			followupAt(100*time.Millisecond, "queued"),
		}})
		assert.Equal(t, []string{
			`0 user/message m1 "first"`,
			`0 inbox/push m1 next-turn followup`,
			`0 turn/start 1`,
			`0 step/start 1.1`,
			`0 inbox/claim 1.1 m1 next-turn`,
			`100 user/message m2 "queued"`,
			`100 inbox/push m2 next-turn followup`,
			`200 assistant/chunk 1.1 text "thinking"`,
			`1200 assistant/chunk 1.1 text " slowly"`,
			`1200 assistant/chunk 1.1 finish completed`,
			`1200 assistant/message 1.1 completed`,
			`1200 step/end 1.1`,
			`1200 user/message m3 "from the observer"`,
			`1200 inbox/push m3 next-turn followup`,
			`1200 turn/end 1 completed`,
			`1200 turn/start 2`,
			`1200 inbox/clear m2 next-turn`,
			`1200 inbox/clear m3 next-turn`,
			`1200 turn/end 2 aborted(user)`,
		}, lines(r.Events), "seed %d", seed)
		assert.Empty(t, r.ActionErrors, "seed %d", seed)
		var invariant *harness.InvariantError
		assert.ErrorAs(t, appendErr, &invariant, "seed %d: the observer's own append is refused, not deadlocked", seed)
		require.NotEmpty(t, r.AgentErrors, "seed %d", seed)
		assert.Equal(t, "observer panic", r.AgentErrors[0].Source)
		assert.Equal(t, 1, r.AgentErrors[0].Turn)
		assert.Equal(t, 1, r.AgentErrors[0].Step)
		assert.Contains(t, r.AgentErrors[0].Err.Error(), "observer exploded")
	}
}

// A watcher of agent/error that panics is contained too: the other watchers hear of it.
func TestPanickingErrorWatcherIsContained(t *testing.T) {
	for _, seed := range seeds {
		var heard []string
		r := play(t, seed, world{Answers: []sim.Answer{sim.Fail(10*time.Millisecond, errors.New("boom"))}, Actions: []action{
			{At: 0, Name: "watch", Do: func(r *run) error {
				r.Agent.Watch(func(harness.AgentError) { panic("watcher exploded") })
				r.Agent.Watch(func(e harness.AgentError) { heard = append(heard, e.Source) })
				return nil
			}},
			followupAt(0, "hi"),
		}})
		assert.Equal(t, "error", lastTurnEnd(t, r.Events).Reason.Kind, "seed %d: the turn settles", seed)
		assert.Equal(t, []string{"turn", "watcher panic"}, heard, "seed %d", seed)
	}
}

// A step cut off at max-tokens commits its text only: its truncated tool call is neither run
// nor kept, so the next request carries no call without a result.
func TestMaxTokensStepCommitsTextOnly(t *testing.T) {
	truncated := sim.Answer{Beats: []sim.Beat{
		{After: 100 * time.Millisecond, Chunk: harness.Chunk{Kind: harness.ChunkText, Text: "let me"}},
		{Chunk: call("c1", "read", `{"a":`)},
		{Chunk: harness.Chunk{Kind: harness.ChunkFinish, Finish: harness.FinishMaxTokens}},
	}}
	onlyCall := sim.Answer{Beats: []sim.Beat{
		{After: 100 * time.Millisecond, Chunk: call("c2", "read", `{"b`)},
		{Chunk: harness.Chunk{Kind: harness.ChunkFinish, Finish: harness.FinishMaxTokens}},
	}}
	for _, seed := range seeds {
		r := play(t, seed, world{
			Answers: []sim.Answer{truncated, onlyCall, done("ok")},
			Tools:   func(harness.Runtime) []harness.Tool { return []harness.Tool{okTool("read")} },
			Actions: []action{followupAt(0, "one"), followupAt(50*time.Millisecond, "two"), followupAt(150*time.Millisecond, "three")},
		})
		messages := ofType[harness.AssistantMessage](r.Events)
		require.Len(t, messages, 3, "seed %d", seed)
		assert.Equal(t, []harness.Block{{Type: harness.BlockText, Text: "let me"}}, messages[0].Message.Blocks)
		assert.Equal(t, []harness.Block{}, messages[1].Message.Blocks, "seed %d: no text, no blocks", seed)
		assert.Empty(t, ofType[harness.ToolCall](r.Events), "seed %d: a truncated call never runs", seed)
		for i, conversation := range r.Provider.Conversations {
			for _, entry := range conversation {
				for _, b := range entry.Blocks {
					assert.NotEqual(t, harness.BlockToolCall, b.Type, "seed %d: request %d replays a truncated call", seed, i+1)
				}
			}
		}
	}
}

// A waking send and a cancel without keepInbox in the same instant, from two tasks, in either
// order: a message the cancel cleared never reaches a request, and no step/start follows the
// cancel in the turn it cancelled.
func TestSendAndCancelInTheSameInstant(t *testing.T) {
	for seed := int64(1); seed <= 60; seed++ {
		r := play(t, seed, world{Answers: []sim.Answer{slowText(), done("b"), done("c")}, Actions: []action{
			followupAt(0, "first"),
			{At: 300 * time.Millisecond, Name: "race", Do: func(r *run) error {
				r.RT.Go("sender", func() {
					if _, err := r.Agent.Steer("racing steer"); err != nil {
						r.ActionErrors["steer"] = err
					}
				})
				r.RT.Go("canceller", func() {
					if err := r.Agent.Cancel(harness.CancelCause{Kind: harness.CauseUser}, false); err != nil {
						r.ActionErrors["cancel"] = err
					}
				})
				return nil
			}},
			followupAt(2*time.Second, "later"),
		}})
		assert.Empty(t, r.ActionErrors, "seed %d", seed)
		cleared := map[string]bool{}
		texts := map[string]string{}
		for _, e := range r.Events {
			switch d := e.Data.(type) {
			case harness.UserMessage:
				texts[d.Message.ID] = d.Message.Text
			case harness.InboxClear:
				cleared[texts[d.MessageID]] = true
			}
		}
		for i, conversation := range r.Provider.Conversations {
			for _, entry := range conversation {
				assert.False(t, entry.Role == harness.RoleUser && cleared[entry.Text], "seed %d: request %d carries %q, which a cancel cleared", seed, i+1, entry.Text)
			}
		}
		assert.Equal(t, "completed", lastTurnEnd(t, r.Events).Reason.Kind, "seed %d: the later followup is served", seed)
	}
}

// A turn cancelled before its first step writes no step/start, whichever of the cancel and the
// driver runs first: every step/start of a turn comes before the cancel that aborted it.
func TestTurnCancelledBeforeItsFirstStepWritesNoStepStart(t *testing.T) {
	for seed := int64(1); seed <= 60; seed++ {
		cancelSeq := -1
		r := play(t, seed, world{Answers: []sim.Answer{done("a")}, Actions: []action{
			{At: 0, Name: "race", Do: func(r *run) error {
				r.RT.Go("sender", func() { r.Agent.Followup("first") })
				r.RT.Go("canceller", func() {
					cancelSeq = r.Agent.Session().Len() // Cancel does not yield: nothing comes between
					r.Agent.Cancel(harness.CancelCause{Kind: harness.CauseUser}, true)
				})
				return nil
			}},
		}})
		require.GreaterOrEqual(t, cancelSeq, 0)
		aborted := map[int]bool{}
		for _, end := range ofType[harness.TurnEnd](r.Events) {
			aborted[end.Turn] = end.Reason.Kind == harness.EndAborted
		}
		for _, e := range r.Events {
			if s, ok := e.Data.(harness.StepStart); ok && aborted[s.Turn] {
				assert.LessOrEqual(t, e.Seq, int64(cancelSeq), "seed %d: step/start written after the cancel that aborted its turn", seed)
			}
		}
	}
}

// deliberatingHandler is a downstream handler that takes its time (through the runtime), then
// asks for a retry: a fallback to another model, say.
type deliberatingHandler struct {
	rt    harness.Runtime
	delay time.Duration
	asked int
}

func (h *deliberatingHandler) HandleRequestError(req *harness.RequestError, next func() bool) (bool, error) {
	h.asked++
	if err := h.rt.Sleep(h.delay, req.Ctx); err != nil {
		return false, nil
	}
	return true, nil
}

// Disposing of the llm-retry plugin while a downstream handler deliberates ends the chain: the
// handler's late retry is dropped and the turn ends with the failure, in always and normal mode.
func TestDisposedRetryPluginDropsALateDownstreamRetry(t *testing.T) {
	always := harness.DefaultRetryPolicy()
	always.Mode, always.MaxRetries = harness.ModeAlways, 0
	for _, policy := range []harness.RetryPolicy{always, harness.DefaultRetryPolicy()} {
		for _, seed := range seeds {
			handler := &deliberatingHandler{delay: 500 * time.Millisecond}
			p := policy
			r := play(t, seed, world{
				Policy:   &p,
				Handlers: []harness.RequestErrorHandler{handler},
				Answers:  []sim.Answer{sim.Fail(100*time.Millisecond, sim.Failure(harness.CodeContextWindowExceeded, "too long")), done("retried")},
				Actions: []action{
					{At: 0, Name: "handler on this run's runtime", Do: func(r *run) error { handler.rt = r.RT; return nil }},
					followupAt(0, "hi"),
					{At: 300 * time.Millisecond, Name: "dispose plugin", Do: func(r *run) error { r.Agent.DisposeRetryPlugin(); return nil }},
				},
			})
			assert.Equal(t, []string{"0 1.1 attempt 1"}, r.Provider.Requests, "%s seed %d: no retry after disposal", p.Mode, seed)
			end := lastTurnEnd(t, r.Events)
			require.Equal(t, harness.EndError, end.Reason.Kind, "%s seed %d", p.Mode, seed)
			assert.Equal(t, harness.CodeContextWindowExceeded, end.Reason.Error.Code)
			assert.Equal(t, int64(600), r.Events[len(r.Events)-1].Time, "%s seed %d: the turn ends when the handler has decided", p.Mode, seed)
		}
	}
}

// AgentError names the step the failure happened in.
func TestAgentErrorNamesItsStep(t *testing.T) {
	for _, seed := range seeds {
		r := play(t, seed, world{
			Answers: []sim.Answer{toolCalls(call("c1", "read", "{}")), sim.Fail(10*time.Millisecond, errors.New("boom"))},
			Tools:   func(harness.Runtime) []harness.Tool { return []harness.Tool{okTool("read")} },
			Actions: []action{followupAt(0, "hi")},
		})
		require.Len(t, r.AgentErrors, 1, "seed %d", seed)
		assert.Equal(t, 1, r.AgentErrors[0].Turn)
		assert.Equal(t, 2, r.AgentErrors[0].Step, "seed %d: the failure happened in step 2", seed)
	}
	r := play(t, 1, world{Answers: []sim.Answer{sim.Fail(10*time.Millisecond, errors.New("boom"))}, Actions: []action{followupAt(0, "hi")}})
	require.Len(t, r.AgentErrors, 1)
	assert.Equal(t, 1, r.AgentErrors[0].Step, "a failure in step 1 names step 1, not 0")
}

// selfCause is an error that is its own cause.
type selfCause struct{ msg string }

func (e *selfCause) Error() string { return e.msg }
func (e *selfCause) Unwrap() error { return e }

func TestErrorChainKeepsTheMessageOfAnErrorThatIsItsOwnCause(t *testing.T) {
	assert.Equal(t, "stuck: <circular cause>", harness.ErrorChain(&selfCause{msg: "stuck"}))
	assert.Equal(t, "outer: stuck: <circular cause>", harness.ErrorChain(fmt.Errorf("outer: %w", &selfCause{msg: "stuck"})))
}

// New keeps its own copy of the policy's retryable codes: editing the caller's slice later
// changes neither what the agent retries nor the policyKey its chains carry.
func TestNewCopiesTheRetryableCodes(t *testing.T) {
	for _, seed := range seeds {
		policy := harness.DefaultRetryPolicy()
		policy.RetryableCodes = []string{harness.CodeRateLimit}
		r := play(t, seed, world{
			Policy:  &policy,
			Answers: []sim.Answer{sim.Fail(10*time.Millisecond, sim.Failure(harness.CodeRateLimit, "slow down")), done("ok")},
			Actions: []action{
				{At: 0, Name: "edit the caller's codes", Do: func(*run) error { policy.RetryableCodes[0] = harness.CodeServer; return nil }},
				followupAt(0, "hi"),
			},
		})
		retries := ofType[harness.LlmRetry](r.Events)
		require.Len(t, retries, 1, "seed %d: RATE_LIMIT is still retried", seed)
		assert.True(t, strings.HasSuffix(retries[0].PolicyKey, "/codes=RATE_LIMIT"), "seed %d: %s", seed, retries[0].PolicyKey)
	}
}
