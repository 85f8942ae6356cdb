package harness

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// historyLogs are logs whose verdict hangs on the state earlier events left: the open step's
// calls, its retry chains, the retries awaiting their start and every chain's retryId. Each is
// split at every event below, so the state Extend starts from is the one a split left.
func historyLogs() map[string][]Event {
	call := func(id string) ToolCall { return ToolCall{Turn: 1, Step: 1, CallID: id, Name: "ls"} }
	result := func(id string) ToolResult { return ToolResult{Turn: 1, Step: 1, CallID: id, Content: "ok"} }
	started := func(id string, retry int) LlmRetryStarted {
		return LlmRetryStarted{RetryID: id, Turn: 1, Step: 1, Retry: retry}
	}
	step2 := func(r LlmRetry) LlmRetry { r.Step = 2; return r }
	valid := []EventData{TurnStart{Turn: 1}, StepStart{Turn: 1, Step: 1}, call("c1"), call("c2"), result("c1"),
		retryEvent("r1", 1), started("r1", 1), retryEvent("r1", 2), started("r1", 2), result("c2"),
		StepEnd{Turn: 1, Step: 1}, StepStart{Turn: 1, Step: 2}, step2(retryEvent("r2", 1)), StepEnd{Turn: 1, Step: 2},
		TurnEnd{Turn: 1, Reason: TurnEndReason{Kind: EndCompleted}}}
	with := func(prefix int, bad ...EventData) []Event {
		return logOf(append(append([]EventData{}, valid[:prefix]...), bad...)...)
	}
	return map[string][]Event{
		"valid":                         logOf(valid...),
		"a second result for a call":    with(5, result("c1")),
		"a call made twice":             with(5, call("c2")),
		"a result after the step ended": with(12, ToolResult{Turn: 1, Step: 2, CallID: "c2"}),
		"a chain skips a retry":         with(7, func() LlmRetry { r := retryEvent("r1", 3); r.MaxRetries = intPtr(5); return r }()),
		"a chain changes its retryId":   with(7, retryEvent("r9", 2)),
		"a retryId owned by a chain":    with(12, step2(retryEvent("r1", 1))),
		"a retry started twice":         with(7, started("r1", 1)),
		"a seq out of order":            append(with(9), Event{Seq: 11, Type: TypeToolResult, Data: result("c2")}),
	}
}

// A validated history refuses exactly what ValidateLog refuses, with the same error, however the
// log is split between ValidateHistory and Extend: the state a split leaves is the state the
// layer has there, so no event is judged against less (or more) than the events before it.
func TestValidatedHistoryRefusesWhatValidateLogRefuses(t *testing.T) {
	for name, log := range historyLogs() {
		t.Run(name, func(t *testing.T) {
			want := ValidateLog(log)
			if name == "valid" {
				require.NoError(t, want)
			} else {
				require.Error(t, want, "the case is a bad log")
			}
			for k := 0; k <= len(log); k++ {
				h, err := ValidateHistory(log[:k])
				if err != nil {
					assert.Equal(t, want, err, "the prefix of %d refused as ValidateLog refuses the log", k)
					continue
				}
				extended, err := h.Extend(log[k:])
				assert.Equal(t, want, err, "split after %d events", k)
				if err == nil {
					assert.Equal(t, log, extended.Events())
					if k > 0 {
						assert.Equal(t, log[:k], h.Events(), "Extend leaves the history it extends as it was")
					}
				}
			}
		})
	}
}

// The history's state is its own: a store's or an agent's validator (a clone), changed by the
// events appended after the history, changes nothing of it, so extending it later (a reopen after
// the next crash) judges the log's next events against the history's own end. A clone that
// shared the step's calls or the awaited starts with it would refuse the result and the start
// below as a second one.
func TestValidatedHistoryStateIsNotSharedWithItsClones(t *testing.T) {
	log := logOf(TurnStart{Turn: 1}, StepStart{Turn: 1, Step: 1}, ToolCall{Turn: 1, Step: 1, CallID: "c1", Name: "ls"},
		retryEvent("r1", 1))
	h, err := ValidateHistory(log)
	require.NoError(t, err)
	more := []Event{
		{Seq: 5, Type: TypeToolResult, Data: ToolResult{Turn: 1, Step: 1, CallID: "c1", Content: "ok"}},
		{Seq: 6, Type: TypeLlmRetryStarted, Data: LlmRetryStarted{RetryID: "r1", Turn: 1, Step: 1, Retry: 1}},
	}
	clone := h.Validator()
	for _, e := range more {
		require.NoError(t, clone.Append(e))
	}
	state := h.Validator() // an agent's
	for _, e := range more {
		require.NoError(t, state.Append(e))
	}
	_, err = h.Extend(more)
	assert.NoError(t, err, "the history's state is as the history left it")
}

// historyTestAgent builds an agent on a clock that never moves, so that two agents resumed from
// the same log write the same repair events, to the millisecond.
func historyTestAgent(t *testing.T, cfg Config) (*Agent, error) {
	t.Helper()
	mock := clock.NewMock()
	mock.Set(time.UnixMilli(1_700_000_000_000))
	cfg.Provider, cfg.Runtime, cfg.Random = &nilThenText{}, NewProductionRuntime(mock), rand.New(rand.NewSource(1))
	return New(cfg)
}

// crashedLog is a log a crash ended mid-step: a message still in the inbox, a call with no
// result and a retry chain under way, for crash repair to close.
func crashedLog() []Event {
	return logOf(
		UserMessage{Message: Message{ID: "m1", Text: "hi"}},
		InboxPush{Lane: LaneNextTurn, Kind: KindFollowup, MessageID: "m1"},
		UserMessage{Message: Message{ID: "m2", Text: "later"}},
		InboxPush{Lane: LaneNextTurn, Kind: KindFollowup, MessageID: "m2"},
		TurnStart{Turn: 1},
		StepStart{Turn: 1, Step: 1},
		InboxClaim{Lane: LaneNextTurn, MessageID: "m1", Turn: 1, Step: 1},
		retryEvent("r1", 1),
		LlmRetryStarted{RetryID: "r1", Turn: 1, Step: 1, Retry: 1},
		AssistantMessage{Turn: 1, Step: 1, Message: AssembledMessage{Blocks: []Block{{Type: BlockToolCall, CallID: "c1", Name: "ls"}}}, Finish: FinishToolCalls},
		ToolCall{Turn: 1, Step: 1, CallID: "c1", Name: "ls"},
	)
}

// An agent resumed from a validated history is the agent resumed from its events: the same log,
// crash repair included, the same retry chains, the same inbox and conversation.
func TestResumeFromIsResumingFromHistory(t *testing.T) {
	log := crashedLog()
	h, err := ValidateHistory(log)
	require.NoError(t, err)
	fromHistory, err := historyTestAgent(t, Config{History: log})
	require.NoError(t, err)
	fromValidated, err := historyTestAgent(t, Config{ResumeFrom: h})
	require.NoError(t, err)
	want := fromHistory.Session().Events()
	require.Greater(t, len(want), len(log), "crash repair wrote events")
	assert.Equal(t, want, fromValidated.Session().Events())
	key := ChainKey{Turn: 1, Step: 1, Provider: "p", PolicyKey: "k"}
	wantChain, wantOK := fromHistory.Session().Chain(key)
	gotChain, gotOK := fromValidated.Session().Chain(key)
	assert.Equal(t, wantOK, gotOK)
	assert.Equal(t, wantChain, gotChain)
	assert.Equal(t, fromHistory.conversation.entries, fromValidated.conversation.entries)
	assert.Equal(t, fromHistory.inbox, fromValidated.inbox)
	assert.Equal(t, fromHistory.lastTurn, fromValidated.lastTurn)
	assert.Equal(t, fromHistory.messageCount, fromValidated.messageCount)
	assert.Equal(t, log, h.Events(), "the history is as it was")
}

// Two agents resumed from one validated history each have a log of their own: neither's appends
// show in the other's log or in the history.
func TestResumeFromTwiceGivesEachAgentItsOwnLog(t *testing.T) {
	log := crashedLog()
	h, err := ValidateHistory(log)
	require.NoError(t, err)
	first, err := historyTestAgent(t, Config{ResumeFrom: h})
	require.NoError(t, err)
	second, err := historyTestAgent(t, Config{ResumeFrom: h})
	require.NoError(t, err)
	require.Equal(t, first.Session().Events(), second.Session().Events())
	n := first.Session().Len()
	for i, a := range []*Agent{first, second} {
		_, err := a.Session().Append(UserMessage{Message: Message{ID: fmt.Sprintf("own%d", i), Text: "mine"}})
		require.NoError(t, err)
	}
	for i, a := range []*Agent{first, second} {
		events := a.Session().Events()
		require.Len(t, events, n+1)
		assert.Equal(t, fmt.Sprintf("own%d", i), events[n].Data.(UserMessage).Message.ID, "agent %d's own event", i)
	}
	assert.Equal(t, log, h.Events(), "the history is as it was")
	_, err = h.Extend(first.Session().Events()[len(log):])
	assert.NoError(t, err, "the history still extends by what the first agent wrote after it")
}

// A bad configuration is refused: History and ResumeFrom are two ways to give one history.
func TestResumeFromAndHistoryTogetherAreRefused(t *testing.T) {
	log := crashedLog()
	h, err := ValidateHistory(log)
	require.NoError(t, err)
	_, err = historyTestAgent(t, Config{History: log, ResumeFrom: h})
	require.EqualError(t, err, "harness: config: History and ResumeFrom are both set; set one")
}

// An empty validated history is nil, and resuming from it is starting afresh.
func TestEmptyValidatedHistoryIsNil(t *testing.T) {
	h, err := ValidateHistory(nil)
	require.NoError(t, err)
	assert.Nil(t, h)
	assert.Nil(t, h.Events())
	assert.Equal(t, Validator{}, h.Validator())
	a, err := historyTestAgent(t, Config{ResumeFrom: h})
	require.NoError(t, err)
	assert.Zero(t, a.Session().Len())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, a.WhenIdle(ctx))
}
