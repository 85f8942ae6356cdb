package properties

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/turnsim/turnsim/harness"
)

// firedOnly returns how often property fired on r.
func firedOnly(r *Run, property string) int { return fired(r)[property] }

// A stream that keeps talking after the cancel: seq, not time, says what came after it.
func TestNoOutputAfterCancel(t *testing.T) {
	events := []harness.EventData{
		harness.UserMessage{Message: harness.Message{ID: "m1", Text: "hi"}},
		harness.InboxPush{Lane: harness.LaneNextTurn, Kind: harness.KindFollowup, MessageID: "m1"},
		harness.TurnStart{Turn: 1},
		harness.StepStart{Turn: 1, Step: 1},
		harness.InboxClaim{Turn: 1, Step: 1, Lane: harness.LaneNextTurn, MessageID: "m1"},
		harness.AssistantChunk{Turn: 1, Step: 1, Chunk: harness.Chunk{Kind: harness.ChunkText, Text: "part 1"}}, // seq 6
		harness.StepEnd{Turn: 1, Step: 1},
		harness.TurnEnd{Turn: 1, Reason: harness.TurnEndReason{Kind: harness.EndAborted, Reason: &harness.CancelCause{Kind: harness.CauseUser}}},
	}
	cancelAt := func(seqAt int64) func(r *Run) {
		return func(r *Run) {
			r.Trace.Cancels = []Cancel{{AtMs: 5, SeqAt: seqAt, Kind: harness.CauseUser, Running: true, Turn: 1}}
		}
	}
	cases := map[string]struct {
		edit func(r *Run)
		want int
	}{
		"chunk written before the cancel, same millisecond": {cancelAt(6), 0},
		"chunk written after the cancel":                    {cancelAt(5), 1},
		"a plugin-end is no cancel of the turn": {func(r *Run) {
			r.Trace.Cancels = []Cancel{{AtMs: 4, SeqAt: 4, Kind: pluginEnd, Running: true, Turn: 1}}
		}, 0},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := run(t, events...)
			r.Traced = true
			c.edit(r)
			assert.Equal(t, c.want, firedOnly(r, "no-output-after-cancel"), "%v", Check(r))
		})
	}
}

// Clears follow exactly the cancels without keepInbox, for every message queued then.
func TestInboxClearExact(t *testing.T) {
	queued := []harness.EventData{
		harness.UserMessage{Message: harness.Message{ID: "m1", Text: "a"}},
		harness.InboxPush{Lane: harness.LaneNextTurn, Kind: harness.KindFollowup, MessageID: "m1"},
		harness.UserMessage{Message: harness.Message{ID: "m2", Text: "b"}},
		harness.InboxPush{Lane: harness.LaneNextStep, Kind: harness.KindInject, MessageID: "m2"},
	}
	clearM1 := harness.InboxClear{Lane: harness.LaneNextTurn, MessageID: "m1"}
	clearM2 := harness.InboxClear{Lane: harness.LaneNextStep, MessageID: "m2"}
	cancel := func(keepInbox bool, kind string) Cancel {
		return Cancel{AtMs: 4, SeqAt: 4, Kind: kind, KeepInbox: keepInbox}
	}
	cases := map[string]struct {
		clears   []harness.EventData
		cancel   Cancel
		refusals []Refusal
		want     int
	}{
		"cancel clears both lanes":            {[]harness.EventData{clearM1, clearM2}, cancel(false, harness.CauseUser), nil, 0},
		"cancel leaves a message":             {[]harness.EventData{clearM1}, cancel(false, harness.CauseHook), nil, 1},
		"the store refused that clear":        {[]harness.EventData{clearM1}, cancel(false, harness.CauseHook), []Refusal{{AtMs: 4, Type: harness.TypeInboxClear}}, 0},
		"keepInbox clears nothing":            {nil, cancel(true, harness.CauseParent), nil, 0},
		"keepInbox clears all the same":       {[]harness.EventData{clearM2}, cancel(true, harness.CauseParent), nil, 1},
		"dispose clears":                      {[]harness.EventData{clearM1, clearM2}, cancel(true, harness.CauseDisposed), nil, 2},
		"a cancel while the agent was down":   {nil, Cancel{AtMs: 4, SeqAt: 4, Kind: harness.CauseUser, Down: true}, nil, 0},
		"a clear with no cancellation at all": {[]harness.EventData{clearM1}, Cancel{AtMs: 4, SeqAt: 2, Kind: harness.CauseUser, KeepInbox: true}, nil, 1},
		"a cancel with nothing queued yet":    {nil, Cancel{AtMs: 0, SeqAt: 0, Kind: harness.CauseUser}, nil, 0},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := run(t, append(append([]harness.EventData{}, queued...), c.clears...)...)
			r.Traced = true
			r.Trace.Cancels = []Cancel{c.cancel}
			r.Trace.Refusals = c.refusals
			assert.Equal(t, c.want, firedOnly(r, "inbox-clear-exact"), "%v", Check(r))
		})
	}
}

// What the provider was sent: every call answered once, after it; no result without its call.
func TestConversationWellFormed(t *testing.T) {
	user := RequestMessage{Role: harness.RoleUser}
	asks := func(ids ...string) RequestMessage { return RequestMessage{Role: harness.RoleAssistant, CallIDs: ids} }
	result := func(id string) RequestMessage { return RequestMessage{Role: harness.RoleTool, ResultFor: id} }
	cases := map[string]struct {
		messages []RequestMessage
		want     int
	}{
		"every call answered":          {[]RequestMessage{user, asks("a", "b"), result("a"), result("b"), user}, 0},
		"a call without its result":    {[]RequestMessage{user, asks("a", "b"), result("a"), user}, 1},
		"a result without its call":    {[]RequestMessage{result("a"), result("b"), user}, 2},
		"a result before its call":     {[]RequestMessage{user, result("a"), asks("a")}, 1},
		"a call answered twice":        {[]RequestMessage{user, asks("a"), result("a"), result("a")}, 1},
		"a call asked for twice":       {[]RequestMessage{user, asks("a"), result("a"), asks("a")}, 1},
		"no tool calls at all":         {[]RequestMessage{user, {Role: harness.RoleAssistant}, user}, 0},
		"reported once, not per reply": {[]RequestMessage{user, asks("a")}, 1},
		// ids are unique per step only: a later step may reuse an answered call's id
		"an id reused by a later step":     {[]RequestMessage{user, asks("a"), result("a"), user, asks("a", "b"), result("a"), result("b")}, 0},
		"a reused id without its result":   {[]RequestMessage{user, asks("a"), result("a"), user, asks("a"), user}, 1},
		"an id asked again before it ends": {[]RequestMessage{user, asks("a"), asks("a"), result("a")}, 1},
		"one id twice in one answer":       {[]RequestMessage{user, asks("a", "a"), result("a"), result("a")}, 1},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := run(t, harness.TurnStart{Turn: 1}, harness.TurnEnd{Turn: 1, Reason: harness.TurnEndReason{Kind: harness.EndCompleted}})
			r.Traced = true
			r.Trace.Requests = []Request{{Turn: 1, Step: 1, Attempt: 1, EndMs: 1, Messages: c.messages}, {Turn: 1, Step: 2, Attempt: 1, EndMs: 1, Messages: c.messages}}
			assert.Equal(t, c.want, firedOnly(r, "conversation-well-formed"), "%v", Check(r))
		})
	}
}

// The recorded failure keeps the status the provider sent, however the error was wrapped.
func TestFailureRecordedFaithfullyJudgesTheStatus(t *testing.T) {
	for name, c := range map[string]struct {
		recorded int
		want     int
	}{"same status": {502, 0}, "status lost": {0, 1}, "status changed": {500, 1}} {
		t.Run(name, func(t *testing.T) {
			failure := harness.Failure{Code: harness.CodeServer, Message: "bad gateway", Status: c.recorded}
			r := run(t,
				harness.TurnStart{Turn: 1},
				harness.StepStart{Turn: 1, Step: 1},
				harness.StepEnd{Turn: 1, Step: 1},
				harness.TurnEnd{Turn: 1, Reason: harness.TurnEndReason{Kind: harness.EndError, Error: &failure}},
			)
			r.Traced = true
			r.Trace.Requests = []Request{{Turn: 1, Step: 1, Attempt: 1, StartMs: 1, EndMs: 3, Failed: true, FailCode: harness.CodeServer, FailStatus: 502}}
			assert.Equal(t, c.want, firedOnly(r, "failure-recorded-faithfully"), "%v", Check(r))
		})
	}
}
