package harness

import (
	"context"
	"io"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Go has three ways for a function to end: it returns, it panics, or it ends its goroutine by
// runtime.Goexit, as a test's fake provider or tool does when it calls t.FailNow. The harness
// treats the third like the second: the turn settles, a tool's call gets its result, the agent
// goes idle and serves the next message.

// scriptedAnswers is a provider whose calls follow a script: "goexit" ends the calling
// goroutine ("send-goexit" after calling steer), "call" asks for the tool "exit", anything else
// answers with that text.
type scriptedAnswers struct {
	mu     sync.Mutex
	script []string
	// steer, if set, is called when the script says "steer": the call then answers "steered".
	steer func()
}

func (*scriptedAnswers) Name() string { return "scripted" }

func (p *scriptedAnswers) Stream(context.Context, Request) (Stream, error) {
	p.mu.Lock()
	next := p.script[0]
	p.script = p.script[1:]
	p.mu.Unlock()
	switch next {
	case "goexit":
		runtime.Goexit()
	case "send-goexit":
		p.steer()
		runtime.Goexit()
	case "steer":
		p.steer()
		next = "steered"
	case "call":
		return &chunks{list: []Chunk{{Kind: ChunkToolCall, CallID: "c1", Name: "exit"}, {Kind: ChunkFinish, Finish: FinishToolCalls}}}, nil
	}
	return &chunks{list: []Chunk{{Kind: ChunkText, Text: next}, {Kind: ChunkFinish, Finish: FinishCompleted}}}, nil
}

type chunks struct{ list []Chunk }

func (c *chunks) Next(context.Context) (Chunk, error) {
	if len(c.list) == 0 {
		return Chunk{}, io.EOF
	}
	next := c.list[0]
	c.list = c.list[1:]
	return next, nil
}

// goexitAgent runs script on an agent on the production runtime, with the tool "exit", which
// ends its goroutine by runtime.Goexit; it sends each message and waits for the agent to go idle.
func goexitAgent(t *testing.T, script []string, messages ...string) (*Agent, []AgentError) {
	t.Helper()
	var mu sync.Mutex
	var errs []AgentError
	a, err := New(Config{
		Provider: &scriptedAnswers{script: script},
		Tools:    []Tool{{Name: "exit", Run: func(context.Context, string) (string, error) { runtime.Goexit(); return "", nil }}},
		OnError:  func(e AgentError) { mu.Lock(); errs = append(errs, e); mu.Unlock() },
	})
	require.NoError(t, err)
	for _, m := range messages {
		followupAndSettle(t, a, m)
	}
	mu.Lock()
	defer mu.Unlock()
	return a, errs
}

func types(events []Event) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.Type)
	}
	return out
}

// A turn whose goroutine ends by runtime.Goexit settles as failed, like one that panicked, and
// the next message runs the next turn. Before, the turn's deferred settlement dereferenced the
// reason no step had set: the nil-pointer panic took the program down.
func TestGoexitInATurnSettlesItAsFailed(t *testing.T) {
	a, errs := goexitAgent(t, []string{"goexit", "hello back"}, "hello", "again")
	events := a.Session().Events()
	assert.Equal(t, []string{
		"user/message", "inbox/push", "turn/start", "step/start", "inbox/claim", "step/end", "turn/end",
		"user/message", "inbox/push", "turn/start", "step/start", "inbox/claim", "assistant/chunk", "assistant/chunk", "assistant/message", "step/end", "turn/end",
	}, types(events))
	first := events[6].Data.(TurnEnd)
	assert.Equal(t, 1, first.Turn)
	assert.Equal(t, EndError, first.Reason.Kind)
	require.NotNil(t, first.Reason.Error)
	assert.Contains(t, first.Reason.Error.Message, "runtime.Goexit")
	second := events[len(events)-1].Data.(TurnEnd)
	assert.Equal(t, 2, second.Turn)
	assert.Equal(t, EndCompleted, second.Reason.Kind)
	require.Len(t, errs, 1)
	assert.Equal(t, "turn", errs[0].Source)
	assert.ErrorIs(t, errs[0].Err, errGoexit)
}

// A message sent while a turn ends by runtime.Goexit is served as after any failed turn that took
// a message: the next turn starts at once, in a new driver. Before, the ending goroutine took the
// loop with it, and the message waited, queued, for the next send (work-left-served found it).
func TestGoexitInATurnLeavesNoMessageWaiting(t *testing.T) {
	var a *Agent
	provider := &scriptedAnswers{script: []string{"send-goexit", "served"}}
	provider.steer = func() {
		_, err := a.Followup("meanwhile")
		assert.NoError(t, err)
	}
	a, err := New(Config{Provider: provider})
	require.NoError(t, err)
	events := followupAndSettle(t, a, "hello")
	assert.Equal(t, []string{
		"user/message", "inbox/push", "turn/start", "step/start", "inbox/claim", "user/message", "inbox/push", "step/end", "turn/end",
		"turn/start", "step/start", "inbox/claim", "assistant/chunk", "assistant/chunk", "assistant/message", "step/end", "turn/end",
	}, types(events))
	assert.Equal(t, EndError, events[8].Data.(TurnEnd).Reason.Kind)
	claim := events[11].Data.(InboxClaim)
	assert.Equal(t, 2, claim.Turn)
	assert.Equal(t, events[5].Data.(UserMessage).Message.ID, claim.MessageID, "turn 2 serves the message sent during turn 1")
	assert.Equal(t, EndCompleted, events[len(events)-1].Data.(TurnEnd).Reason.Kind)
}

// A tool that ends its goroutine by runtime.Goexit gets a TOOL_PANIC result, and the turn goes
// on. Before, its result was never handed in and the executor waited for it forever.
func TestGoexitInAToolIsAToolPanic(t *testing.T) {
	a, _ := goexitAgent(t, []string{"call", "done"}, "use the tool")
	var result *ToolResult
	for _, e := range a.Session().Events() {
		if r, ok := e.Data.(ToolResult); ok {
			result = &r
		}
	}
	require.NotNil(t, result, "the call has its result")
	assert.True(t, result.IsError)
	require.NotNil(t, result.Error)
	assert.Equal(t, CodeToolPanic, result.Error.Code)
	assert.Contains(t, result.Content, "runtime.Goexit")
	last := a.Session().Events()
	assert.Equal(t, EndCompleted, last[len(last)-1].Data.(TurnEnd).Reason.Kind)
}

// A Goexit in a later step of a turn whose earlier step completed ends the turn in error too,
// not with the earlier step's completion. Found by the provider-goexit fault: the turn's
// settlement took "no end reason yet" for a Goexit, and a completed step had set one.
func TestGoexitInALaterStepSettlesTheTurnAsFailed(t *testing.T) {
	provider := &scriptedAnswers{script: []string{"steer", "goexit"}}
	a, err := New(Config{Provider: provider})
	require.NoError(t, err)
	provider.steer = func() { _, err := a.Steer("one more step"); assert.NoError(t, err) }
	events := followupAndSettle(t, a, "hello")
	var steps []int
	for _, e := range events {
		if s, ok := e.Data.(StepStart); ok {
			steps = append(steps, s.Step)
		}
	}
	assert.Equal(t, []int{1, 2}, steps, "the steer runs a second step")
	end := events[len(events)-1].Data.(TurnEnd)
	assert.Equal(t, EndError, end.Reason.Kind)
	require.NotNil(t, end.Reason.Error)
	assert.Contains(t, end.Reason.Error.Message, "runtime.Goexit")
}

// followupAndSettle sends text as a followup, waits until the agent is idle, and returns its log,
// checked by the invariant layer.
func followupAndSettle(t *testing.T, a *Agent, text string) []Event {
	t.Helper()
	_, err := a.Followup(text)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, a.WhenIdle(ctx))
	events := a.Session().Events()
	require.NoError(t, ValidateLog(events))
	return events
}
