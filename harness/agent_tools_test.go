package harness_test

// Tool execution stories: error results, the rolling pool, exclusive calls, truncated calls and
// the executor's own failure (spec §6).

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/sim"
)

// echoTool answers its arguments after 100 ms.
func echoTool(rt harness.Runtime) harness.Tool {
	return harness.Tool{Name: "echo", Run: func(ctx context.Context, args string) (string, error) {
		if err := rt.Sleep(100*time.Millisecond, ctx); err != nil {
			return "", err
		}
		return "echo " + args, nil
	}}
}

// resultOf returns the tool/result for callID.
func resultOf(t *testing.T, events []harness.Event, callID string) harness.ToolResult {
	t.Helper()
	for _, r := range ofType[harness.ToolResult](events) {
		if r.CallID == callID {
			return r
		}
	}
	require.Failf(t, "no tool/result", "for call %s", callID)
	return harness.ToolResult{}
}

// badCallStory is the story every error-result test tells: the model calls the bad tool (c1),
// then echo (c2); both get results in order, and a second step completes the turn.
func badCallStory(name string) []string {
	return []string{
		`0 user/message m1 "go"`,
		`0 inbox/push m1 next-turn followup`,
		`0 turn/start 1`,
		`0 step/start 1.1`,
		`0 inbox/claim 1.1 m1 next-turn`,
		`0 assistant/chunk 1.1 tool-call c1 ` + name,
		`0 assistant/chunk 1.1 tool-call c2 echo`,
		`0 assistant/chunk 1.1 finish tool-calls`,
		`0 assistant/message 1.1 tool-calls`,
		`0 tool/call 1.1 c1 ` + name,
	}
}

// playBadCall plays a story in which the model calls badName (c1) and then echo (c2).
func playBadCall(t *testing.T, seed int64, badName string, bad *harness.Tool) *run {
	t.Helper()
	return play(t, seed, world{
		Answers: []sim.Answer{toolCalls(call("c1", badName, `{"x":1}`), call("c2", "echo", `{"y":2}`)), done("after")},
		Tools: func(rt harness.Runtime) []harness.Tool {
			tools := []harness.Tool{echoTool(rt)}
			if bad != nil {
				tools = append(tools, *bad)
			}
			return tools
		},
		Actions: []action{followupAt(0, "go")},
	})
}

// afterBadCall is the rest of the story once c1's result (with code) is in at resultMs.
func afterBadCall(resultMs int, code string) []string {
	at := func(ms int, s string) string { return strconv.Itoa(ms) + " " + s }
	return []string{
		at(resultMs, `tool/result 1.1 c1 `+code),
		at(resultMs, `tool/call 1.1 c2 echo`),
		at(resultMs+100, `tool/result 1.1 c2 ok`),
		at(resultMs+100, `step/end 1.1`),
		at(resultMs+100, `step/start 1.2`),
		at(resultMs+200, `assistant/chunk 1.2 text "after"`),
		at(resultMs+200, `assistant/chunk 1.2 finish completed`),
		at(resultMs+200, `assistant/message 1.2 completed`),
		at(resultMs+200, `step/end 1.2`),
		at(resultMs+200, `turn/end 1 completed`),
	}
}

func TestToolUnknownNameGivesNotFoundAndTheOtherCallsGoOn(t *testing.T) {
	for _, seed := range seeds {
		r := playBadCall(t, seed, "nope", nil)
		assert.Equal(t, append(badCallStory("nope"), afterBadCall(0, "TOOL_NOT_FOUND")...), lines(r.Events), "seed %d", seed)
		assert.Equal(t, harness.ToolResult{
			Turn: 1, Step: 1, CallID: "c1", IsError: true, Content: `Error: no tool named "nope"`,
			Error: &harness.ToolError{Name: "ToolNotFound", Code: harness.CodeToolNotFound, Message: `no tool named "nope"`},
		}, resultOf(t, r.Events, "c1"))
		assert.Equal(t, harness.ToolResult{Turn: 1, Step: 1, CallID: "c2", Content: `echo {"y":2}`}, resultOf(t, r.Events, "c2"))
		assert.Empty(t, r.AgentErrors, "an error result is not an agent error")
	}
}

func TestToolPanicGivesToolPanicWithThePanicText(t *testing.T) {
	for _, seed := range seeds {
		boom := harness.Tool{Name: "boom", Run: func(context.Context, string) (string, error) {
			panic("kaboom: index out of range")
		}}
		r := playBadCall(t, seed, "boom", &boom)
		assert.Equal(t, append(badCallStory("boom"), afterBadCall(0, "TOOL_PANIC")...), lines(r.Events), "seed %d", seed)
		result := resultOf(t, r.Events, "c1")
		assert.True(t, result.IsError)
		require.NotNil(t, result.Error)
		assert.Equal(t, harness.CodeToolPanic, result.Error.Code)
		assert.Contains(t, result.Error.Message, "kaboom: index out of range", "the panic text is in the message")
		assert.Contains(t, result.Content, "kaboom: index out of range")
		assert.Empty(t, r.AgentErrors)
	}
}

func TestToolErrorGivesAnErrorResultAndTheOtherCallsGoOn(t *testing.T) {
	for _, seed := range seeds {
		var rt harness.Runtime
		failing := harness.Tool{Name: "write", Run: func(ctx context.Context, args string) (string, error) {
			if err := rt.Sleep(50*time.Millisecond, ctx); err != nil {
				return "", err
			}
			return "", fmt.Errorf("write report: %w", errors.New("disk full"))
		}}
		r := play(t, seed, world{
			Answers: []sim.Answer{toolCalls(call("c1", "write", `{"x":1}`), call("c2", "echo", `{"y":2}`)), done("after")},
			Tools: func(r harness.Runtime) []harness.Tool {
				rt = r
				return []harness.Tool{echoTool(r), failing}
			},
			Actions: []action{followupAt(0, "go")},
		})
		assert.Equal(t, append(badCallStory("write"), afterBadCall(50, "TOOL_ERROR")...), lines(r.Events), "seed %d", seed)
		assert.Equal(t, harness.ToolResult{
			Turn: 1, Step: 1, CallID: "c1", IsError: true, Content: "Error: write report: disk full",
			Error: &harness.ToolError{Name: "ToolError", Code: harness.CodeToolError, Message: "write report: disk full"},
		}, resultOf(t, r.Events, "c1"))
		assert.False(t, resultOf(t, r.Events, "c2").IsError)
	}
}

func TestToolFailureSetsNameAndCode(t *testing.T) {
	for _, seed := range seeds {
		denied := harness.Tool{Name: "rm", Run: func(context.Context, string) (string, error) {
			return "", fmt.Errorf("rm: %w", &harness.ToolFailure{Name: "PermissionDenied", Code: "TOOL_DENIED", Message: "not in the sandbox"})
		}}
		r := playBadCall(t, seed, "rm", &denied)
		assert.Equal(t, append(badCallStory("rm"), afterBadCall(0, "TOOL_DENIED")...), lines(r.Events), "seed %d", seed)
		assert.Equal(t, harness.ToolResult{
			Turn: 1, Step: 1, CallID: "c1", IsError: true, Content: "Error: not in the sandbox",
			Error: &harness.ToolError{Name: "PermissionDenied", Code: "TOOL_DENIED", Message: "not in the sandbox"},
		}, resultOf(t, r.Events, "c1"), "a wrapped *ToolFailure chooses the result's name and code")
	}
}

// poolTools is one parallel tool "p" that sleeps for its arguments' milliseconds and one
// exclusive tool "x" that does the same, both noting how many calls are in flight.
type poolTools struct {
	// ignoreCancel makes the tools sleep through a cancellation, as stuck calls would.
	ignoreCancel          bool
	inFlight, maxInFlight int
	// exclusiveSawOthers is set if "x" ever ran beside another call.
	exclusiveSawOthers bool
	finished           []string
}

func (p *poolTools) tools(rt harness.Runtime) []harness.Tool {
	run := func(name string) func(context.Context, string) (string, error) {
		return func(ctx context.Context, args string) (string, error) {
			ms, err := strconv.Atoi(args)
			if err != nil {
				return "", err
			}
			p.inFlight++
			p.maxInFlight = max(p.maxInFlight, p.inFlight)
			if name == "x" && p.inFlight > 1 {
				p.exclusiveSawOthers = true
			}
			defer func() { p.inFlight-- }()
			var cancel []context.Context
			if !p.ignoreCancel {
				cancel = append(cancel, ctx)
			}
			if err := rt.Sleep(time.Duration(ms)*time.Millisecond, cancel...); err != nil {
				return "", err
			}
			if name == "x" && p.inFlight > 1 {
				p.exclusiveSawOthers = true
			}
			p.finished = append(p.finished, args)
			return name + " slept " + args, nil
		}
	}
	return []harness.Tool{{Name: "p", Parallel: true, Run: run("p")}, {Name: "x", Run: run("x")}}
}

func TestParallelPoolBoundsInFlightAndCommitsInModelOrder(t *testing.T) {
	for _, seed := range seeds {
		pool := &poolTools{}
		r := play(t, seed, world{
			// c1 is slowest: c2 finishes first, yet c1's result is committed first.
			Answers:     []sim.Answer{toolCalls(call("c1", "p", "300"), call("c2", "p", "100"), call("c3", "p", "250"), call("c4", "p", "100")), done("after")},
			Tools:       pool.tools,
			MaxParallel: 2,
			Actions:     []action{followupAt(0, "go")},
		})
		assert.Equal(t, []string{
			`0 user/message m1 "go"`,
			`0 inbox/push m1 next-turn followup`,
			`0 turn/start 1`,
			`0 step/start 1.1`,
			`0 inbox/claim 1.1 m1 next-turn`,
			`0 assistant/chunk 1.1 tool-call c1 p`,
			`0 assistant/chunk 1.1 tool-call c2 p`,
			`0 assistant/chunk 1.1 tool-call c3 p`,
			`0 assistant/chunk 1.1 tool-call c4 p`,
			`0 assistant/chunk 1.1 finish tool-calls`,
			`0 assistant/message 1.1 tool-calls`,
			`0 tool/call 1.1 c1 p`,
			`0 tool/call 1.1 c2 p`,
			`100 tool/call 1.1 c3 p`, // c2 finished: a slot is free, but c2 waits for c1 to commit
			`300 tool/result 1.1 c1 ok`,
			`300 tool/result 1.1 c2 ok`,
			`300 tool/call 1.1 c4 p`,
			`350 tool/result 1.1 c3 ok`,
			`400 tool/result 1.1 c4 ok`,
			`400 step/end 1.1`,
			`400 step/start 1.2`,
			`500 assistant/chunk 1.2 text "after"`,
			`500 assistant/chunk 1.2 finish completed`,
			`500 assistant/message 1.2 completed`,
			`500 step/end 1.2`,
			`500 turn/end 1 completed`,
		}, lines(r.Events), "seed %d", seed)
		assert.Equal(t, 2, pool.maxInFlight, "seed %d: at most MaxParallelToolCalls in flight", seed)
		assert.Equal(t, []string{"100", "300", "250", "100"}, pool.finished, "the calls did finish out of model order")
	}
}

func TestExclusiveCallRunsAloneAndStopsThePool(t *testing.T) {
	for _, seed := range seeds {
		pool := &poolTools{}
		r := play(t, seed, world{
			Answers: []sim.Answer{
				toolCalls(call("a1", "p", "100"), call("a2", "p", "200"), call("x1", "x", "50"), call("b1", "p", "100"), call("b2", "p", "100")),
				done("after"),
			},
			Tools:   pool.tools,
			Actions: []action{followupAt(0, "go")},
		})
		assert.Equal(t, []string{
			`0 user/message m1 "go"`,
			`0 inbox/push m1 next-turn followup`,
			`0 turn/start 1`,
			`0 step/start 1.1`,
			`0 inbox/claim 1.1 m1 next-turn`,
			`0 assistant/chunk 1.1 tool-call a1 p`,
			`0 assistant/chunk 1.1 tool-call a2 p`,
			`0 assistant/chunk 1.1 tool-call x1 x`,
			`0 assistant/chunk 1.1 tool-call b1 p`,
			`0 assistant/chunk 1.1 tool-call b2 p`,
			`0 assistant/chunk 1.1 finish tool-calls`,
			`0 assistant/message 1.1 tool-calls`,
			`0 tool/call 1.1 a1 p`, // the pool over a1, a2 stops at x1
			`0 tool/call 1.1 a2 p`,
			`100 tool/result 1.1 a1 ok`,
			`200 tool/result 1.1 a2 ok`,
			`200 tool/call 1.1 x1 x`, // after every earlier result
			`250 tool/result 1.1 x1 ok`,
			`250 tool/call 1.1 b1 p`, // a new pool after the exclusive call
			`250 tool/call 1.1 b2 p`,
			`350 tool/result 1.1 b1 ok`,
			`350 tool/result 1.1 b2 ok`,
			`350 step/end 1.1`,
			`350 step/start 1.2`,
			`450 assistant/chunk 1.2 text "after"`,
			`450 assistant/chunk 1.2 finish completed`,
			`450 assistant/message 1.2 completed`,
			`450 step/end 1.2`,
			`450 turn/end 1 completed`,
		}, lines(r.Events), "seed %d", seed)
		assert.False(t, pool.exclusiveSawOthers, "the exclusive call ran alone")
		assert.Equal(t, 2, pool.maxInFlight)
	}
}

func TestMaxTokensNeverRunsATruncatedToolCall(t *testing.T) {
	for _, seed := range seeds {
		ran := false
		truncated := sim.Answer{Beats: []sim.Beat{
			{After: 100 * time.Millisecond, Chunk: harness.Chunk{Kind: harness.ChunkText, Text: "let me"}},
			{Chunk: call("c1", "echo", `{"cut`)},
			{Chunk: harness.Chunk{Kind: harness.ChunkFinish, Finish: harness.FinishMaxTokens}},
		}}
		r := play(t, seed, world{
			Answers: []sim.Answer{truncated},
			Tools: func(rt harness.Runtime) []harness.Tool {
				return []harness.Tool{{Name: "echo", Run: func(context.Context, string) (string, error) { ran = true; return "", nil }}}
			},
			Actions: []action{followupAt(0, "go")},
		})
		assert.Equal(t, []string{
			`0 user/message m1 "go"`,
			`0 inbox/push m1 next-turn followup`,
			`0 turn/start 1`,
			`0 step/start 1.1`,
			`0 inbox/claim 1.1 m1 next-turn`,
			`100 assistant/chunk 1.1 text "let me"`,
			`100 assistant/chunk 1.1 tool-call c1 echo`,
			`100 assistant/chunk 1.1 finish max-tokens`,
			`100 assistant/message 1.1 max-tokens`,
			`100 step/end 1.1`,
			`100 turn/end 1 max-tokens`,
		}, lines(r.Events), "seed %d: no tool/call, no second step", seed)
		assert.False(t, ran, "the truncated call is never executed")
		assert.Empty(t, ofType[harness.ToolCall](r.Events))
	}
}

// errStoreRefused is the refusal of refusingStore.
var errStoreRefused = errors.New("store: disk full: tool/result c2 not written")

// refusingStore accepts every event except the tool/result of one call.
type refusingStore struct{ callID string }

func (s refusingStore) Append(e harness.Event) error {
	if r, ok := e.Data.(harness.ToolResult); ok && r.CallID == s.callID {
		return errStoreRefused
	}
	return nil
}

func TestSchedulerFailureStopsDispatchWaitsForStartedCallsAndFabricatesNothing(t *testing.T) {
	for _, seed := range seeds {
		pool := &poolTools{}
		r := play(t, seed, world{
			Answers:     []sim.Answer{toolCalls(call("c1", "p", "100"), call("c2", "p", "50"), call("c3", "p", "300"), call("c4", "p", "100"))},
			Tools:       pool.tools,
			MaxParallel: 2,
			Store:       refusingStore{callID: "c2"},
			Actions:     []action{followupAt(0, "go")},
		})
		assert.Equal(t, []string{
			`0 user/message m1 "go"`,
			`0 inbox/push m1 next-turn followup`,
			`0 turn/start 1`,
			`0 step/start 1.1`,
			`0 inbox/claim 1.1 m1 next-turn`,
			`0 assistant/chunk 1.1 tool-call c1 p`,
			`0 assistant/chunk 1.1 tool-call c2 p`,
			`0 assistant/chunk 1.1 tool-call c3 p`,
			`0 assistant/chunk 1.1 tool-call c4 p`,
			`0 assistant/chunk 1.1 finish tool-calls`,
			`0 assistant/message 1.1 tool-calls`,
			`0 tool/call 1.1 c1 p`,
			`0 tool/call 1.1 c2 p`,
			`50 tool/call 1.1 c3 p`,
			`100 tool/result 1.1 c1 ok`, // c2's result is refused right after: dispatching stops
			`350 step/end 1.1`,          // c3, already started, is waited for
			`350 turn/end 1 error(UNKNOWN)`,
		}, lines(r.Events), "seed %d: no c4 dispatch, no synthetic results", seed)
		assert.Equal(t, []string{"50", "100", "300"}, pool.finished, "every started call ran to its end; c4 never ran")
		end := lastTurnEnd(t, r.Events)
		require.NotNil(t, end.Reason.Error)
		assert.Equal(t, harness.CodeUnknown, end.Reason.Error.Code)
		assert.Contains(t, end.Reason.Error.Message, errStoreRefused.Error(), "the turn's error names the refusal")
		require.Len(t, r.AgentErrors, 1, "agent/error was emitted")
		assert.ErrorIs(t, r.AgentErrors[0].Err, errStoreRefused)
		assert.Equal(t, 1, r.AgentErrors[0].Turn)
		assert.Equal(t, 1, r.Provider.inner.Served(), "the turn ended: no further step")
	}
}

func TestAbortInThePoolDrainsStartedCallsAndSkipsTheRest(t *testing.T) {
	for _, seed := range seeds {
		pool := &poolTools{ignoreCancel: true}
		r := play(t, seed, world{
			Answers:     []sim.Answer{toolCalls(call("c1", "p", "300"), call("c2", "p", "100"), call("c3", "p", "250"), call("c4", "p", "100"))},
			Tools:       pool.tools,
			MaxParallel: 2,
			Actions:     []action{followupAt(0, "go"), cancelAt(150*time.Millisecond, harness.CauseUser, false)},
		})
		assert.Equal(t, []string{
			`0 user/message m1 "go"`,
			`0 inbox/push m1 next-turn followup`,
			`0 turn/start 1`,
			`0 step/start 1.1`,
			`0 inbox/claim 1.1 m1 next-turn`,
			`0 assistant/chunk 1.1 tool-call c1 p`,
			`0 assistant/chunk 1.1 tool-call c2 p`,
			`0 assistant/chunk 1.1 tool-call c3 p`,
			`0 assistant/chunk 1.1 tool-call c4 p`,
			`0 assistant/chunk 1.1 finish tool-calls`,
			`0 assistant/message 1.1 tool-calls`,
			`0 tool/call 1.1 c1 p`,
			`0 tool/call 1.1 c2 p`,
			`100 tool/call 1.1 c3 p`,
			`300 tool/result 1.1 c1 ok`, // the abort at 150: no new dispatch when c1 frees a slot
			`300 tool/result 1.1 c2 ok`,
			`350 tool/result 1.1 c3 ok`, // started calls drain, with their real results
			`350 tool/call 1.1 c4 p`,    // the call never started gets call + synthetic result
			`350 tool/result 1.1 c4 TOOL_ABORTED_BEFORE_DISPATCH`,
			`350 step/end 1.1`,
			`350 turn/end 1 aborted(user)`,
		}, lines(r.Events), "seed %d", seed)
		assert.Equal(t, []string{"100", "300", "250"}, pool.finished, "c4 never ran")
		assert.Equal(t, "p slept 250", resultOf(t, r.Events, "c3").Content)
		assert.Equal(t, harness.ToolResult{
			Turn: 1, Step: 1, CallID: "c4", IsError: true, Content: "Error: tool call aborted before dispatch",
			Error: &harness.ToolError{Name: "AbortError", Code: harness.CodeToolAbortedBeforeDispatch, Message: "tool call aborted before dispatch"},
		}, resultOf(t, r.Events, "c4"))
	}
}
