package properties

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/turnsim/turnsim/harness"
)

// oneCall is a traced run of one step with one tool call and its result.
func oneCall(t *testing.T, name string, result harness.ToolResult, runs ...ToolRun) *Run {
	result.Turn, result.Step, result.CallID = 1, 1, "c1"
	r := run(t,
		harness.TurnStart{Turn: 1},
		harness.StepStart{Turn: 1, Step: 1},
		harness.AssistantMessage{Turn: 1, Step: 1, Message: harness.AssembledMessage{Blocks: []harness.Block{{Type: harness.BlockToolCall, CallID: "c1", Name: name}}}, Finish: harness.FinishToolCalls},
		harness.ToolCall{Turn: 1, Step: 1, CallID: "c1", Name: name},
		result,
		harness.StepEnd{Turn: 1, Step: 1},
		harness.TurnEnd{Turn: 1, Reason: harness.TurnEndReason{Kind: harness.EndCompleted}},
	)
	for i := range runs {
		runs[i].Turn, runs[i].Step = 1, 1 // the runs are of the one call: turn 1 step 1's c1
	}
	r.Traced, r.Trace.Tools = true, runs
	return r
}

func failed(code, message string) harness.ToolResult {
	return harness.ToolResult{IsError: true, Content: "Error: " + message, Error: &harness.ToolError{Name: "E", Code: code, Message: message}}
}

func TestFaultLabelled(t *testing.T) {
	panicked := ToolRun{CallID: "c1", Name: "read", Outcome: "panic", Content: "tool read exploded", EndMs: 1}
	erred := ToolRun{CallID: "c1", Name: "read", Outcome: "error", EndMs: 1}
	clean := ToolRun{CallID: "c1", Name: "read", Outcome: "ok", Content: "fine", EndMs: 1}
	chose := ToolRun{CallID: "c1", Name: "read", Outcome: "failure", Content: "quota spent", EndMs: 1,
		Failure: &harness.ToolFailure{Name: "QuotaExceeded", Code: "QUOTA", Message: "quota spent"}}
	chosen := harness.ToolResult{IsError: true, Content: "Error: quota spent", Error: &harness.ToolError{Name: "QuotaExceeded", Code: "QUOTA", Message: "quota spent"}}
	withError := func(e harness.ToolError) harness.ToolResult {
		r := chosen
		r.Error = &e
		return r
	}
	cases := map[string]struct {
		r     *Run
		fires bool
	}{
		"unknown as not found":                {oneCall(t, "frobnicate", failed(harness.CodeToolNotFound, "no tool named frobnicate")), false},
		"unknown as tool error":               {oneCall(t, "frobnicate", failed(harness.CodeToolError, "no tool named frobnicate")), true},
		"unknown as success":                  {oneCall(t, "frobnicate", harness.ToolResult{Content: "ok"}), true},
		"unknown that ran":                    {oneCall(t, "frobnicate", failed(harness.CodeToolNotFound, "x"), ToolRun{CallID: "c1", Outcome: "ok"}), true},
		"registered as not found":             {oneCall(t, "read", failed(harness.CodeToolNotFound, "no tool named read")), true},
		"panic as panic, with text":           {oneCall(t, "read", failed(harness.CodeToolPanic, `tool "read" panicked: tool read exploded`), panicked), false},
		"panic without its text":              {oneCall(t, "read", failed(harness.CodeToolPanic, "it broke"), panicked), true},
		"panic as tool error":                 {oneCall(t, "read", failed(harness.CodeToolError, "tool read exploded"), panicked), true},
		"error as error":                      {oneCall(t, "read", failed(harness.CodeToolError, "tool failed"), erred), false},
		"error as success":                    {oneCall(t, "read", harness.ToolResult{Content: "fine"}, erred), true},
		"clean run, clean result":             {oneCall(t, "read", harness.ToolResult{Content: "fine"}, clean), false},
		"clean run flagged isError":           {oneCall(t, "read", harness.ToolResult{IsError: true, Content: "fine"}, clean), true},
		"ToolFailure as chosen":               {oneCall(t, "read", chosen, chose), false},
		"ToolFailure as tool error":           {oneCall(t, "read", withError(harness.ToolError{Name: "ToolError", Code: harness.CodeToolError, Message: "tool client: attempt 1: quota spent"}), chose), true},
		"ToolFailure with another name":       {oneCall(t, "read", withError(harness.ToolError{Name: "ToolError", Code: "QUOTA", Message: "quota spent"}), chose), true},
		"ToolFailure with the wrapper's text": {oneCall(t, "read", withError(harness.ToolError{Name: "QuotaExceeded", Code: "QUOTA", Message: "tool client: attempt 1: quota spent"}), chose), true},
		"synthetic result set aside":          {oneCall(t, "frobnicate", failed(harness.CodeToolAbortedBeforeDispatch, "aborted")), false},
		"crash repair's set aside":            {oneCall(t, "read", failed(harness.CodeToolOutcomeUnknown, "unknown")), false},
		"cancelled run judged elsewhere":      {oneCall(t, "read", harness.ToolResult{Content: "?"}, ToolRun{CallID: "c1", Outcome: "cancelled"}), false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, c.fires, fired(c.r)["fault-labelled"] > 0, "%v", Check(c.r))
		})
	}
	untraced := oneCall(t, "frobnicate", failed(harness.CodeToolError, "x"))
	untraced.Traced = false
	assert.Zero(t, fired(untraced)["fault-labelled"], "a log alone does not say what the world did")
}
