package harness

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// logOf numbers payloads into events 1, 2, 3, … at time 0.
func logOf(data ...EventData) []Event {
	events := make([]Event, len(data))
	for i, d := range data {
		events[i] = Event{Seq: int64(i + 1), Type: d.EventType(), Data: d}
	}
	return events
}

func intPtr(n int) *int { return &n }

var rateLimit = Failure{Code: CodeRateLimit, Message: "429"}

func retryEvent(id string, retry int) LlmRetry {
	return LlmRetry{RetryID: id, Turn: 1, Step: 1, Provider: "p", Mode: ModeNormal, PolicyKey: "k", Retry: retry, MaxRetries: intPtr(2), DelayMs: 500, Failure: rateLimit}
}

// openStep is the prefix of a log with turn 1 step 1 open.
var openStep = []EventData{TurnStart{Turn: 1}, StepStart{Turn: 1, Step: 1}}

func TestInvariantLayerAcceptsAWellFormedLog(t *testing.T) {
	events := logOf(
		UserMessage{Message: Message{ID: "m1", Text: "hi"}},
		InboxPush{Lane: LaneNextTurn, Kind: KindFollowup, MessageID: "m1"},
		TurnStart{Turn: 1},
		StepStart{Turn: 1, Step: 1},
		InboxClaim{Turn: 1, Step: 1, Lane: LaneNextTurn, MessageID: "m1"},
		retryEvent("r1", 1),
		LlmRetryStarted{RetryID: "r1", Turn: 1, Step: 1, Retry: 1},
		retryEvent("r1", 2),
		LlmRetryStarted{RetryID: "r1", Turn: 1, Step: 1, Retry: 2},
		AssistantChunk{Turn: 1, Step: 1, Chunk: Chunk{Kind: ChunkToolCall, CallID: "c1", Name: "ls"}},
		AssistantMessage{Turn: 1, Step: 1, Finish: FinishToolCalls},
		ToolCall{Turn: 1, Step: 1, CallID: "c1", Name: "ls"},
		ToolResult{Turn: 1, Step: 1, CallID: "c1", Content: "ok"},
		StepEnd{Turn: 1, Step: 1},
		StepStart{Turn: 1, Step: 2},
		ToolResult{Turn: 1, Step: 2, CallID: "c9", IsError: true, Error: &ToolError{Name: "Crash", Code: CodeToolNotStarted, Message: "never started"}},
		StepEnd{Turn: 1, Step: 2},
		TurnEnd{Turn: 1, Reason: TurnEndReason{Kind: EndAborted, Reason: &CancelCause{Kind: CauseUser}}},
		TurnStart{Turn: 2},
		StepStart{Turn: 2, Step: 1},
		LlmRetry{RetryID: "r2", Turn: 2, Step: 1, Provider: "p", Mode: ModeAlways, PolicyKey: "k", Retry: 1, DelayMs: 0, Failure: Failure{Code: CodeServer, Message: "500", Status: 500, ProviderRetryAfterMs: 3000}},
		StepEnd{Turn: 2, Step: 1},
		TurnEnd{Turn: 2, Reason: TurnEndReason{Kind: EndError, Error: &rateLimit}},
		InboxClear{Lane: LaneNextStep, MessageID: "m2"},
	)
	require.NoError(t, ValidateLog(events))
}

// Each case is a valid prefix and one bad event; the layer must refuse the bad event, naming the
// rule it breaks, and take nothing in.
func TestInvariantLayerRefusesEachKindOfBadEvent(t *testing.T) {
	withOpenStep := func(more ...EventData) []EventData { return append(append([]EventData{}, openStep...), more...) }
	cases := []struct {
		name   string
		prefix []EventData
		bad    EventData
		seq    int64 // 0: the next seq
		rule   string
	}{
		{"seq must start at 1", nil, TurnStart{Turn: 1}, 2, RuleSeq},
		{"seq must grow by exactly 1", []EventData{TurnStart{Turn: 1}}, TurnEnd{Turn: 1, Reason: TurnEndReason{Kind: EndCompleted}}, 3, RuleSeq},
		{"seq must not repeat", []EventData{TurnStart{Turn: 1}}, TurnEnd{Turn: 1, Reason: TurnEndReason{Kind: EndCompleted}}, 1, RuleSeq},
		{"first turn is 1", nil, TurnStart{Turn: 2}, 0, RuleTurn},
		{"turns never nest", []EventData{TurnStart{Turn: 1}}, TurnStart{Turn: 2}, 0, RuleTurn},
		{"turns are numbered in order", []EventData{TurnStart{Turn: 1}, TurnEnd{Turn: 1, Reason: TurnEndReason{Kind: EndCompleted}}}, TurnStart{Turn: 3}, 0, RuleTurn},
		{"turn/end needs an open turn", nil, TurnEnd{Turn: 1, Reason: TurnEndReason{Kind: EndCompleted}}, 0, RuleTurn},
		{"turn/end names the open turn", []EventData{TurnStart{Turn: 1}}, TurnEnd{Turn: 2, Reason: TurnEndReason{Kind: EndCompleted}}, 0, RuleTurn},
		{"turn/end needs no open step", withOpenStep(), TurnEnd{Turn: 1, Reason: TurnEndReason{Kind: EndCompleted}}, 0, RuleTurn},
		{"turn/end reason kind is known", []EventData{TurnStart{Turn: 1}}, TurnEnd{Turn: 1, Reason: TurnEndReason{Kind: "done"}}, 0, RuleData},
		{"aborted needs a known cause", []EventData{TurnStart{Turn: 1}}, TurnEnd{Turn: 1, Reason: TurnEndReason{Kind: EndAborted, Reason: &CancelCause{Kind: "boredom"}}}, 0, RuleData},
		{"error needs a failure", []EventData{TurnStart{Turn: 1}}, TurnEnd{Turn: 1, Reason: TurnEndReason{Kind: EndError}}, 0, RuleData},
		{"step/start needs an open turn", nil, StepStart{Turn: 1, Step: 1}, 0, RuleScope},
		{"steps never nest", withOpenStep(), StepStart{Turn: 1, Step: 2}, 0, RuleStep},
		{"steps are numbered from 1", []EventData{TurnStart{Turn: 1}}, StepStart{Turn: 1, Step: 2}, 0, RuleStep},
		{"step/end names the open step", withOpenStep(), StepEnd{Turn: 1, Step: 2}, 0, RuleScope},
		{"chunk names the open turn", withOpenStep(), AssistantChunk{Turn: 2, Step: 1}, 0, RuleScope},
		{"chunk needs an open step", []EventData{TurnStart{Turn: 1}}, AssistantChunk{Turn: 1, Step: 1}, 0, RuleScope},
		{"message finish is known", withOpenStep(), AssistantMessage{Turn: 1, Step: 1, Finish: "stop"}, 0, RuleData},
		{"tool/call needs a callId", withOpenStep(), ToolCall{Turn: 1, Step: 1, Name: "ls"}, 0, RuleData},
		{"a call is dispatched once", withOpenStep(ToolCall{Turn: 1, Step: 1, CallID: "c1", Name: "ls"}), ToolCall{Turn: 1, Step: 1, CallID: "c1", Name: "ls"}, 0, RuleToolPairing},
		{"tool/result needs its tool/call", withOpenStep(), ToolResult{Turn: 1, Step: 1, CallID: "c1"}, 0, RuleToolPairing},
		{"tool/result needs its tool/call in that step", []EventData{TurnStart{Turn: 1}, StepStart{Turn: 1, Step: 1}, ToolCall{Turn: 1, Step: 1, CallID: "c1", Name: "ls"}, StepEnd{Turn: 1, Step: 1}, StepStart{Turn: 1, Step: 2}}, ToolResult{Turn: 1, Step: 2, CallID: "c1"}, 0, RuleToolPairing},
		{"at most one result per call", withOpenStep(ToolCall{Turn: 1, Step: 1, CallID: "c1", Name: "ls"}, ToolResult{Turn: 1, Step: 1, CallID: "c1"}), ToolResult{Turn: 1, Step: 1, CallID: "c1"}, 0, RuleToolPairing},
		{"an error result is an error", withOpenStep(ToolCall{Turn: 1, Step: 1, CallID: "c1", Name: "ls"}), ToolResult{Turn: 1, Step: 1, CallID: "c1", Error: &ToolError{Code: "X"}}, 0, RuleData},
		{"retry failure needs a code", withOpenStep(), func() EventData { r := retryEvent("r1", 1); r.Failure.Code = ""; return r }(), 0, RuleRetryFields},
		{"retry failure needs a message", withOpenStep(), func() EventData { r := retryEvent("r1", 1); r.Failure.Message = ""; return r }(), 0, RuleRetryFields},
		{"retry status in 100–599", withOpenStep(), func() EventData { r := retryEvent("r1", 1); r.Failure.Status = 600; return r }(), 0, RuleRetryFields},
		{"retry-after positive", withOpenStep(), func() EventData { r := retryEvent("r1", 1); r.Failure.ProviderRetryAfterMs = -1; return r }(), 0, RuleRetryFields},
		{"retry-after finite", withOpenStep(), func() EventData { r := retryEvent("r1", 1); r.Failure.ProviderRetryAfterMs = math.Inf(1); return r }(), 0, RuleRetryFields},
		{"retryId non-empty", withOpenStep(), retryEvent("", 1), 0, RuleRetryFields},
		{"provider non-empty", withOpenStep(), func() EventData { r := retryEvent("r1", 1); r.Provider = ""; return r }(), 0, RuleRetryFields},
		{"policyKey non-empty", withOpenStep(), func() EventData { r := retryEvent("r1", 1); r.PolicyKey = ""; return r }(), 0, RuleRetryFields},
		{"retry positive", withOpenStep(), retryEvent("r1", 0), 0, RuleRetryFields},
		{"normal mode carries maxRetries", withOpenStep(), func() EventData { r := retryEvent("r1", 1); r.MaxRetries = nil; return r }(), 0, RuleRetryFields},
		{"retry within maxRetries", withOpenStep(), func() EventData { r := retryEvent("r1", 1); r.MaxRetries = intPtr(0); return r }(), 0, RuleRetryFields},
		{"always mode carries no maxRetries", withOpenStep(), func() EventData { r := retryEvent("r1", 1); r.Mode = ModeAlways; return r }(), 0, RuleRetryFields},
		{"mode is known", withOpenStep(), func() EventData { r := retryEvent("r1", 1); r.Mode = "often"; return r }(), 0, RuleRetryFields},
		{"delay not negative", withOpenStep(), func() EventData { r := retryEvent("r1", 1); r.DelayMs = -1; return r }(), 0, RuleRetryFields},
		{"delay not NaN", withOpenStep(), func() EventData { r := retryEvent("r1", 1); r.DelayMs = math.NaN(); return r }(), 0, RuleRetryFields},
		{"delay under the timer ceiling", withOpenStep(), func() EventData { r := retryEvent("r1", 1); r.DelayMs = TimerCeilingMs + 1; return r }(), 0, RuleRetryFields},
		{"retry inside the open step", []EventData{TurnStart{Turn: 1}}, retryEvent("r1", 1), 0, RuleScope},
		{"a new chain starts at 1", withOpenStep(), retryEvent("r1", 2), 0, RuleRetryChain},
		{"retry is one more than the last", withOpenStep(retryEvent("r1", 1)), func() EventData { r := retryEvent("r1", 3); r.MaxRetries = intPtr(5); return r }(), 0, RuleRetryChain},
		{"a continuing chain keeps its retryId", withOpenStep(retryEvent("r1", 1)), retryEvent("r2", 2), 0, RuleRetryChain},
		{"a new chain's retryId is unowned", withOpenStep(retryEvent("r1", 1)), func() EventData { r := retryEvent("r1", 1); r.Provider = "other"; return r }(), 0, RuleRetryChain},
		{"a new chain's retryId is unowned across steps", []EventData{TurnStart{Turn: 1}, StepStart{Turn: 1, Step: 1}, retryEvent("r1", 1), StepEnd{Turn: 1, Step: 1}, StepStart{Turn: 1, Step: 2}}, func() EventData { r := retryEvent("r1", 1); r.Step = 2; return r }(), 0, RuleRetryChain},
		{"retry-started pairs with a retry", withOpenStep(), LlmRetryStarted{RetryID: "r1", Turn: 1, Step: 1, Retry: 1}, 0, RuleRetryStarted},
		{"retry-started pairs with the same retry number", withOpenStep(retryEvent("r1", 1)), LlmRetryStarted{RetryID: "r1", Turn: 1, Step: 1, Retry: 2}, 0, RuleRetryStarted},
		{"retry-started pairs once", withOpenStep(retryEvent("r1", 1), LlmRetryStarted{RetryID: "r1", Turn: 1, Step: 1, Retry: 1}), LlmRetryStarted{RetryID: "r1", Turn: 1, Step: 1, Retry: 1}, 0, RuleRetryStarted},
		{"retry-started in the retry's step", []EventData{TurnStart{Turn: 1}, StepStart{Turn: 1, Step: 1}, retryEvent("r1", 1), StepEnd{Turn: 1, Step: 1}, StepStart{Turn: 1, Step: 2}}, LlmRetryStarted{RetryID: "r1", Turn: 1, Step: 2, Retry: 1}, 0, RuleRetryStarted},
		{"user message needs an id", nil, UserMessage{}, 0, RuleData},
		{"inbox lane is known", nil, InboxPush{Lane: "later", Kind: KindFollowup, MessageID: "m1"}, 0, RuleData},
		{"inbox kind is known", nil, InboxPush{Lane: LaneNextTurn, Kind: "shout", MessageID: "m1"}, 0, RuleData},
		{"inbox message id non-empty", nil, InboxClear{Lane: LaneNextTurn}, 0, RuleData},
		{"claim inside the open step", []EventData{TurnStart{Turn: 1}}, InboxClaim{Turn: 1, Step: 1, Lane: LaneNextTurn, MessageID: "m1"}, 0, RuleScope},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := NewValidator()
			for _, e := range logOf(c.prefix...) {
				require.NoError(t, v.Append(e), "the prefix must be valid")
			}
			seq := c.seq
			if seq == 0 {
				seq = int64(len(c.prefix) + 1)
			}
			bad := Event{Seq: seq, Type: c.bad.EventType(), Data: c.bad}
			err := v.Append(bad)
			var ie *InvariantError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, c.rule, ie.Rule, ie.Error())
			assert.Equal(t, int64(len(c.prefix)), v.lastSeq, "a refused event is not taken in")
		})
	}
}

func TestInvariantLayerRefusesMismatchedData(t *testing.T) {
	err := NewValidator().Append(Event{Seq: 1, Type: TypeTurnEnd, Data: TurnStart{Turn: 1}})
	var ie *InvariantError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, RuleData, ie.Rule)
	err = NewValidator().Append(Event{Seq: 1, Type: TypeTurnStart})
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, RuleData, ie.Rule)
}

// Accept takes in what Check accepted, as Append would (the file store checks, writes, then
// accepts); an event that does not follow the last one taken in was not the one just checked.
func TestAcceptTakesInACheckedEventAndRefusesAnother(t *testing.T) {
	events := logOf(TurnStart{Turn: 1}, StepStart{Turn: 1, Step: 1}, StepEnd{Turn: 1, Step: 1})
	var checked, appended Validator
	for _, e := range events {
		require.NoError(t, checked.Check(e))
		checked.Accept(e)
		require.NoError(t, appended.Append(e))
	}
	assert.Equal(t, appended, checked, "Check then Accept leaves the state Append leaves")
	assert.Error(t, checked.Check(events[2]), "the step ended: its end again is refused")
	assert.PanicsWithValue(t, "harness: invariant: Accept of seq 2 after seq 3: it was not the event just checked",
		func() { checked.Accept(events[1]) })
}
