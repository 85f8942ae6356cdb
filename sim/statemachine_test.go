package sim

// A rapid state-machine test of the agent's public API: a user drives one agent on the
// deterministic scheduler with a drawn sequence of Followup, Steer, Inject, Cancel (each cause,
// with and without keepInbox), Dispose, DisposeRetryPlugin, Wake, Maintain, WhenIdle with a
// timeout, and waits in virtual time; after every action the invariants below must hold.
//
// Why the actions are drawn up front and not with rapid's T.Repeat: the agent's API must be
// called from a task of the scheduler (the harness blocks and sleeps through it), and a task is
// a goroutine other than the check's. rapid's *T is not for other goroutines: a draw that runs
// out of data (as draws do while rapid shrinks) and t.Fatalf both panic to unwind the check, and
// in a task that panic would be caught by the scheduler as a task's panic, not by rapid. Nor can
// T.Repeat run on the check's goroutine and feed the scheduler an action at a time, because
// sched.Scheduler.Run runs the whole world to its end in one call. So the check draws everything (the
// agent's configuration, its provider's script, the action list) first, runs the world, collects
// what broke as text from inside the task, and reports it with t.Fatalf from its own goroutine
// once Run has returned. rapid shrinks the action list as it would T.Repeat's.

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/eventjson"
	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim/sched"
)

// Action kinds of the state machine, simplest first (rapid shrinks towards the first).
const (
	actAdvance    = "advance"
	actFollowup   = "followup"
	actSteer      = "steer"
	actInject     = "inject"
	actWhenIdle   = "when-idle"
	actMaintain   = "maintain"
	actWake       = "wake"
	actCancel     = "cancel"
	actDispose    = "dispose"
	actPluginDone = "dispose-retry-plugin" // simpler than dispose, but last: see machineActionWeights
)

// machineAction is one drawn call on the agent's API (or a wait in virtual time).
type machineAction struct {
	Kind string
	// Ms is how long to advance, WhenIdle's timeout, or how long Maintain's fn takes.
	Ms        int64
	Cause     string
	KeepInbox bool
}

func (a machineAction) String() string {
	switch a.Kind {
	case actAdvance:
		return fmt.Sprintf("advance %dms", a.Ms)
	case actWhenIdle:
		return fmt.Sprintf("when-idle (timeout %dms)", a.Ms)
	case actMaintain:
		return fmt.Sprintf("maintain (fn takes %dms)", a.Ms)
	case actCancel:
		return fmt.Sprintf("cancel(%s, keepInbox=%t)", a.Cause, a.KeepInbox)
	}
	return a.Kind
}

// GoString makes rapid's log of the drawn actions read like the failure report.
func (a machineAction) GoString() string { return a.String() }

// machineActionWeights weigh the kinds, simplest first: sends most, so turns happen, and
// disposal least, since nothing happens after it (a cancel with cause disposed disposes too).
// rapid draws small integers more often than large ones, and the largest more often than its
// neighbours, so the first kind has a low weight and a harmless one comes last.
var machineActionWeights = []struct {
	kind   string
	weight int
}{
	{actAdvance, 2}, {actFollowup, 6}, {actSteer, 3}, {actInject, 2}, {actWhenIdle, 3},
	{actMaintain, 1}, {actWake, 1}, {actCancel, 4}, {actDispose, 1}, {actPluginDone, 1},
}

// drawActionKind draws a kind by weight. It draws one integer that rapid shrinks towards 0, the
// simplest kind.
func drawActionKind(t *rapid.T) string {
	total := 0
	for _, w := range machineActionWeights {
		total += w.weight
	}
	n := rapid.IntRange(0, total-1).Draw(t, "kind")
	for _, w := range machineActionWeights {
		if n < w.weight {
			return w.kind
		}
		n -= w.weight
	}
	panic("sim: state machine: action weights do not add up")
}

var machineActionGen = rapid.Custom(func(t *rapid.T) machineAction {
	a := machineAction{Kind: drawActionKind(t)}
	switch a.Kind {
	case actAdvance, actWhenIdle:
		a.Ms = rapid.Int64Range(0, 5_000).Draw(t, "ms")
	case actMaintain:
		a.Ms = rapid.Int64Range(0, 200).Draw(t, "ms")
	case actCancel:
		a.Cause = rapid.SampledFrom([]string{harness.CauseUser, harness.CauseParent, harness.CauseHook, harness.CauseDisposed}).Draw(t, "cause")
		a.KeepInbox = rapid.Bool().Draw(t, "keepInbox")
	}
	return a
})

// machineTool is one registered SleepTool.
type machineTool struct {
	Name          string
	Parallel      bool
	DurationMs    int64
	IgnoresCancel bool
}

// Kinds of scripted answer, simplest first.
var machineAnswerKinds = []string{"text", "max-tokens", "tool-calls", "slow-stream", "rate-limit", "retry-after", "server", "fail-mid-stream"}

// machineWorld is everything drawn before the world runs.
type machineWorld struct {
	Seed    int64
	Policy  harness.RetryPolicy
	Pool    int
	Tools   []machineTool
	Answers []Answer
	Actions []machineAction
}

// drawMachineWorld draws the agent's configuration, its provider's script and the user's
// actions, all on the check's goroutine.
func drawMachineWorld(t *rapid.T) machineWorld {
	w := machineWorld{
		Seed:   rapid.Int64().Draw(t, "seed"),
		Policy: drawRetryPolicy(t),
		Pool:   rapid.IntRange(1, 4).Draw(t, "maxParallelToolCalls"),
	}
	for _, tool := range []machineTool{{Name: "quick", Parallel: true}, {Name: "slow", Parallel: true}, {Name: "exclusive"}} {
		tool.DurationMs = rapid.Int64Range(1, 5_000).Draw(t, tool.Name+" durationMs")
		tool.IgnoresCancel = rapid.Bool().Draw(t, tool.Name+" ignores cancel")
		w.Tools = append(w.Tools, tool)
	}
	for i := range rapid.IntRange(0, 16).Draw(t, "answers") {
		w.Answers = append(w.Answers, drawMachineAnswer(t, i, w.Tools))
	}
	for range rapid.IntRange(1, 40).Draw(t, "actions") {
		w.Actions = append(w.Actions, machineActionGen.Draw(t, "action"))
	}
	return w
}

// drawMachineAnswer draws the i-th scripted answer. Call ids carry i, so they are unique in
// the session however the answers are retried.
func drawMachineAnswer(t *rapid.T, i int, tools []machineTool) Answer {
	delay := time.Duration(rapid.Int64Range(5, 300).Draw(t, "delayMs")) * time.Millisecond
	switch rapid.SampledFrom(machineAnswerKinds).Draw(t, "answer") {
	case "max-tokens":
		return Text(delay, "cut", harness.FinishMaxTokens)
	case "tool-calls":
		var calls []harness.Chunk
		for j := range rapid.IntRange(1, 3).Draw(t, "calls") {
			name := rapid.SampledFrom(tools).Draw(t, "tool").Name
			id := fmt.Sprintf("c%d-%d", i+1, j+1)
			calls = append(calls, harness.Chunk{Kind: harness.ChunkToolCall, CallID: id, Name: name, Arguments: `{"id":"` + id + `"}`})
		}
		return toolCalls(calls...)
	case "slow-stream":
		var beats []Beat
		for range rapid.IntRange(1, 3).Draw(t, "chunks") {
			after := time.Duration(rapid.Int64Range(500, 5_000).Draw(t, "slow chunkMs")) * time.Millisecond
			beats = append(beats, Beat{After: after, Chunk: harness.Chunk{Kind: harness.ChunkText, Text: "slowly "}})
		}
		return Answer{Beats: append(beats, Beat{Chunk: harness.Chunk{Kind: harness.ChunkFinish, Finish: harness.FinishCompleted}})}
	case "rate-limit":
		return Fail(delay, &harness.LlmError{Failure: harness.Failure{Code: harness.CodeRateLimit, Message: "rate limited", Status: 429}})
	case "retry-after":
		return Fail(delay, RetryAfter(time.Duration(rapid.Int64Range(1, 60_000).Draw(t, "retryAfterMs"))*time.Millisecond))
	case "server":
		return Fail(delay, &harness.LlmError{Failure: harness.Failure{Code: harness.CodeServer, Message: "bad gateway", Status: 502}})
	case "fail-mid-stream":
		return Answer{
			Beats:     []Beat{{After: delay, Chunk: harness.Chunk{Kind: harness.ChunkText, Text: "half "}}},
			FailAfter: 1, FailDelay: delay, Err: Failure(harness.CodeTransport, "stream interrupted"),
		}
	}
	return Text(delay, "done", harness.FinishCompleted)
}

func TestAgentStateMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := drawMachineWorld(t)
		m := runMachine(w)
		if m.failure == "" {
			return
		}
		var script strings.Builder
		for i, a := range w.Actions {
			mark := "  "
			if i == m.failedAt {
				mark = "=>"
			}
			fmt.Fprintf(&script, "%s %2d. %s\n", mark, i+1, a)
		}
		t.Fatalf("%s\nactions:\n%stimeline:\n%s", m.failure, script.String(), Timeline(m.events, 0))
	})
}

// machine runs the drawn actions on one agent, inside the scheduler's main task, and records the
// first invariant that breaks. Nothing in it touches rapid.
type machine struct {
	s     *sched.Scheduler
	agent *harness.Agent
	// disposedAtSeq is the log's length when the agent was disposed (Dispose, or Cancel with
	// cause disposed); -1 while it is not.
	disposedAtSeq int64
	// failure is the first broken invariant, failedAt the action after which it broke (-1: at
	// the start or the end), events the log at that moment.
	failure  string
	failedAt int
	events   []harness.Event
}

// errWhenIdleTimeout ends a WhenIdle the action gave up on.
var errWhenIdleTimeout = errors.New("sim: state machine: WhenIdle timed out")

// settleTimeout is how long the final WhenIdle may take: more than the slowest work the drawn
// world can leave behind (forty actions' worth of turns with 5 s tools and slow streams).
const settleTimeout = time.Hour

func runMachine(w machineWorld) *machine {
	m := &machine{
		s:             sched.New(sched.Options{Seed: w.Seed, MaxVirtualTime: 3 * settleTimeout}),
		disposedAtSeq: -1,
		failedAt:      -1,
	}
	report := m.s.Run("user", func() { m.play(w) })
	if m.failure == "" && len(report.Findings) > 0 {
		m.failure = "run-completes: " + report.Findings[0].String()
		if m.agent != nil {
			m.events = m.agent.Session().Events()
		}
	}
	return m
}

// play builds the agent and performs the actions, checking the invariants after each, then
// lets the agent settle and checks what must hold at the end.
func (m *machine) play(w machineWorld) {
	var tools []harness.Tool
	for _, tool := range w.Tools {
		tools = append(tools, SleepTool(m.s, tool.Name, time.Duration(tool.DurationMs)*time.Millisecond, tool.Parallel, !tool.IgnoresCancel))
	}
	policy := w.Policy
	agent, err := harness.New(harness.Config{
		Provider:             NewScriptedProvider("scripted", m.s, w.Answers...),
		Runtime:              m.s,
		Random:               rand.New(rand.NewSource(w.Seed)),
		RetryPolicy:          &policy,
		Tools:                tools,
		MaxParallelToolCalls: w.Pool,
	})
	if err != nil {
		m.fail("new", "harness.New refused a drawn configuration: %v", err)
		return
	}
	m.agent = agent
	for i, a := range w.Actions {
		m.failedAt = i
		m.perform(a)
		if m.failure == "" {
			m.checkAlways()
		}
		if m.failure != "" {
			return
		}
	}
	m.failedAt = -1
	m.s.Sleep(10 * time.Minute)
	if err := m.whenIdle(settleTimeout); err != nil {
		m.fail("settles", "the agent did not settle within %v after the last action: %v", settleTimeout, err)
		return
	}
	m.checkAlways()
	m.checkSettled()
	if m.failure == "" {
		m.checkProperties(nil)
	}
}

// fail records the first broken invariant, named, with where it broke.
func (m *machine) fail(invariant, format string, args ...any) {
	if m.failure != "" {
		return
	}
	where := "at the end"
	if m.failedAt >= 0 {
		where = fmt.Sprintf("after action %d", m.failedAt+1)
	}
	m.failure = fmt.Sprintf("%s (+%v): %s: %s", where, m.s.Now().Sub(time.Unix(0, 0)), invariant, fmt.Sprintf(format, args...))
	if m.agent != nil {
		m.events = m.agent.Session().Events() // the log as it was when the invariant broke
	}
}

func (m *machine) disposed() bool { return m.disposedAtSeq >= 0 }

// perform does one action and checks what its own result must be.
func (m *machine) perform(a machineAction) {
	agent := m.agent
	switch a.Kind {
	case actAdvance:
		m.s.Sleep(time.Duration(a.Ms) * time.Millisecond)
	case actFollowup, actSteer, actInject:
		_, err := agent.Send(harness.MessageKind(a.Kind), a.Kind+" text")
		switch {
		case m.disposed() && !errors.Is(err, harness.ErrDisposed):
			m.fail("send-after-dispose-fails", "%s after Dispose returned %v, want ErrDisposed", a.Kind, err)
		case !m.disposed() && err != nil:
			m.fail("send-accepted", "%s before any Dispose failed: %v", a.Kind, err)
		}
	case actWhenIdle:
		err := m.whenIdle(time.Duration(a.Ms) * time.Millisecond)
		switch {
		case err == nil:
			if agent.Status().Running {
				m.fail("idle-after-when-idle", "WhenIdle returned but Status() reports a running turn: %+v", agent.Status())
			}
			m.checkSettled()
		case !errors.Is(err, errWhenIdleTimeout):
			m.fail("when-idle-result", "WhenIdle returned %v, want nil or its timeout", err)
		}
	case actMaintain:
		running := agent.Status().Running
		ran := false
		err := agent.Maintain(func(ctx context.Context) error {
			ran = true
			return m.s.Sleep(time.Duration(a.Ms)*time.Millisecond, ctx)
		})
		switch {
		case m.disposed() && (!errors.Is(err, harness.ErrDisposed) || ran):
			m.fail("maintain-after-dispose", "Maintain after Dispose returned %v (fn ran: %t), want ErrDisposed", err, ran)
		case !m.disposed() && running && (!errors.Is(err, harness.ErrNotIdle) || ran):
			m.fail("maintain-needs-idle", "Maintain while a turn runs returned %v (fn ran: %t), want ErrNotIdle", err, ran)
		case !m.disposed() && !running && (err != nil || !ran):
			m.fail("maintain-when-idle", "Maintain on an idle agent returned %v (fn ran: %t), want nil", err, ran)
		}
	case actWake:
		agent.Wake()
	case actCancel:
		if err := agent.Cancel(harness.CancelCause{Kind: a.Cause, Reason: "state machine"}, a.KeepInbox); err != nil {
			m.fail("cancel-accepted", "Cancel returned %v", err)
		}
		if a.Cause == harness.CauseDisposed && !m.disposed() {
			m.disposedAtSeq = int64(agent.Session().Len())
		}
	case actDispose:
		if err := agent.Dispose(); err != nil {
			m.fail("dispose-accepted", "Dispose returned %v", err)
		}
		if !m.disposed() {
			m.disposedAtSeq = int64(agent.Session().Len())
		}
	case actPluginDone:
		agent.DisposeRetryPlugin()
	default:
		panic("sim: state machine: unknown action " + a.Kind)
	}
}

// whenIdle calls WhenIdle with a timeout: a helper task cancels its context after timeout of
// virtual time, unless WhenIdle returned first.
func (m *machine) whenIdle(timeout time.Duration) error {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	timer, stopTimer := context.WithCancel(context.Background())
	defer stopTimer()
	m.s.Go("when-idle timeout", func() {
		if m.s.Sleep(timeout, timer) == nil {
			cancel(errWhenIdleTimeout)
		}
	})
	return m.agent.WhenIdle(ctx)
}

// checkAlways checks what must hold after every action.
func (m *machine) checkAlways() {
	events := m.agent.Session().Events()
	if err := harness.ValidateLog(events); err != nil {
		m.fail("log-valid", "the session log does not replay through the invariant layer: %v", err)
	}
	m.checkStatus(events)
	m.checkTurnsEndOnce(events)
	m.checkNoTurnAfterDispose(events)
	m.checkProperties(settledOnly)
}

// lastTurnStarted is the number of the last turn/start in the log, 0 if none.
func lastTurnStarted(events []harness.Event) int {
	last := 0
	for _, e := range events {
		if s, ok := e.Data.(harness.TurnStart); ok {
			last = s.Turn
		}
	}
	return last
}

// checkStatus: Status() agrees with the log. A running agent is in the last turn the log
// started, or in the next one whose turn/start is not written yet, or (turn 0) just woken, its
// driver task not yet having numbered the turn; an agent that is not running reports the last
// turn the log started.
func (m *machine) checkStatus(events []harness.Event) {
	status, last := m.agent.Status(), lastTurnStarted(events)
	switch {
	case status.Running && status.Turn != 0 && status.Turn != last && status.Turn != last+1:
		m.fail("status-consistent", "Status() %+v is running turn %d, but the log's last turn/start is turn %d", status, status.Turn, last)
	case !status.Running && status.Turn != last:
		m.fail("status-consistent", "Status() %+v reports turn %d, but the log's last turn/start is turn %d", status, status.Turn, last)
	}
}

// checkTurnsEndOnce: every turn/end ends a turn that started, and no turn ends twice.
func (m *machine) checkTurnsEndOnce(events []harness.Event) {
	started, ended := map[int]bool{}, map[int]int64{}
	for _, e := range events {
		switch d := e.Data.(type) {
		case harness.TurnStart:
			started[d.Turn] = true
		case harness.TurnEnd:
			if !started[d.Turn] {
				m.fail("turn-ends-once", "event %d: turn/end of turn %d, which never started", e.Seq, d.Turn)
			}
			if first, twice := ended[d.Turn]; twice {
				m.fail("turn-ends-once", "event %d: turn %d ends a second time (first turn/end: event %d)", e.Seq, d.Turn, first)
			}
			ended[d.Turn] = e.Seq
		}
	}
}

// checkNoTurnAfterDispose: no turn starts after Dispose (or a cancel with cause disposed).
func (m *machine) checkNoTurnAfterDispose(events []harness.Event) {
	if !m.disposed() {
		return
	}
	for _, e := range events {
		if s, ok := e.Data.(harness.TurnStart); ok && e.Seq > m.disposedAtSeq {
			m.fail("no-turn-after-dispose", "event %d: turn/start %d after the agent was disposed (log length %d then)", e.Seq, s.Turn, m.disposedAtSeq)
		}
	}
}

// checkSettled checks what must hold once the agent is idle: every turn that started has ended,
// and every tool/call has exactly one tool/result.
func (m *machine) checkSettled() {
	events := m.agent.Session().Events()
	if status := m.agent.Status(); status.Running {
		m.fail("settled", "Status() %+v reports a running turn on a settled agent", status)
	}
	open := map[int]int64{}
	results := map[string]int{}
	var calls []string
	for _, e := range events {
		switch d := e.Data.(type) {
		case harness.TurnStart:
			open[d.Turn] = e.Seq
		case harness.TurnEnd:
			delete(open, d.Turn)
		case harness.ToolCall:
			calls = append(calls, d.CallID)
		case harness.ToolResult:
			results[d.CallID]++
		}
	}
	for turn, seq := range open {
		m.fail("every-turn-ends", "turn %d (turn/start at event %d) never ended", turn, seq)
	}
	for _, id := range calls {
		if results[id] != 1 {
			m.fail("one-result-per-call", "tool call %s has %d tool/result events, want 1", id, results[id])
		}
	}
}

// settledOnly are the log-only properties that only hold once the agent has settled: mid-run, a
// turn may still be open and a tool call may still be running.
var settledOnly = []string{"turn-settled", "tool-results-paired"}

// checkProperties runs the properties that need only the log (properties.CheckLog), except
// skip.
func (m *machine) checkProperties(skip []string) {
	events := m.agent.Session().Events()
	var jsonl strings.Builder
	if err := eventjson.Write(&jsonl, events); err != nil {
		m.fail("log-encodes", "the session log does not encode: %v", err)
		return
	}
	for _, v := range properties.CheckLog(events, []byte(jsonl.String())) {
		if !slices.Contains(skip, v.Property) {
			m.fail(v.Property, "%s", v)
			return
		}
	}
}
