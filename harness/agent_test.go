package harness_test

// Agent tests: scripted stories on the simulator's deterministic scheduler, each stated as the
// exact event sequence with virtual times ("<ms> <sim.Describe line>"). This file holds the
// helper that plays a story and the tests of the agent's construction and lifetime; the tool
// executor, retry and phase stories live in agent_tools_test.go, agent_retry_test.go and
// agent_phases_test.go.

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/sim/sched"
)

// seeds: every story is played on several seeds, since the scheduler's choices and the jitter
// draws change with the seed while the story must not.
var seeds = []int64{1, 2, 3, 42, 1000}

// providerName is the name every scripted provider here uses.
const providerName = "scripted"

// world is one story's setup: what the provider answers, which tools exist, the policy, the
// downstream handlers, the store, and what the user does when.
type world struct {
	Policy      *harness.RetryPolicy
	Answers     []sim.Answer
	Tools       func(rt harness.Runtime) []harness.Tool
	Handlers    []harness.RequestErrorHandler
	Store       harness.Store
	MaxParallel int
	Actions     []action
}

// action is something the user (or host) does at a virtual time from the start. All actions run
// in one user task, in time order; an action that must not block that task starts its own with
// r.RT.Go.
type action struct {
	At   time.Duration
	Name string
	Do   func(r *run) error
}

// run is what one played story left behind.
type run struct {
	RT       *sched.Scheduler
	Agent    *harness.Agent
	Provider *recordingProvider
	Report   *sched.RunReport
	// Events is the session log once every task has finished.
	Events       []harness.Event
	AgentErrors  []harness.AgentError
	ActionErrors map[string]error
	// Marks are "<ms> <label>" notes the story's tasks took, in the order they were taken.
	Marks []string
}

// nowMs is the virtual time in milliseconds since the start (the scheduler's epoch is Unix 0).
func (r *run) nowMs() int64 { return r.RT.Now().UnixMilli() }

// mark notes label at the current virtual time. Tasks run one at a time, so no lock is needed.
func (r *run) mark(label string) { r.Marks = append(r.Marks, fmt.Sprintf("%d %s", r.nowMs(), label)) }

// play runs w on a fresh scheduler seeded with seed until every task has finished, and checks
// that the run ended cleanly: no finding, a log that passes the invariant layer, an idle agent.
func play(t *testing.T, seed int64, w world) *run {
	t.Helper()
	s := sched.New(sched.Options{Seed: seed, MaxVirtualTime: time.Hour})
	r := &run{RT: s, ActionErrors: map[string]error{}}
	r.Provider = &recordingProvider{inner: sim.NewScriptedProvider(providerName, s, w.Answers...), run: r}
	var tools []harness.Tool
	if w.Tools != nil {
		tools = w.Tools(s)
	}
	agent, err := harness.New(harness.Config{
		Provider:             r.Provider,
		Runtime:              s,
		Random:               rand.New(rand.NewSource(seed)),
		Store:                w.Store,
		RetryPolicy:          w.Policy,
		Handlers:             w.Handlers,
		Tools:                tools,
		MaxParallelToolCalls: w.MaxParallel,
		OnError:              func(e harness.AgentError) { r.AgentErrors = append(r.AgentErrors, e) },
	})
	require.NoError(t, err)
	r.Agent = agent
	actions := append([]action(nil), w.Actions...)
	sort.SliceStable(actions, func(i, j int) bool { return actions[i].At < actions[j].At })
	r.Report = s.Run("user", func() {
		var elapsed time.Duration
		for _, a := range actions {
			if err := s.Sleep(a.At - elapsed); err != nil {
				panic("the user's sleep was cancelled: " + err.Error())
			}
			elapsed = a.At
			if err := a.Do(r); err != nil {
				r.ActionErrors[a.Name] = err
			}
		}
	})
	for _, f := range r.Report.Findings {
		require.Fail(t, "the run ended early", "seed %d: %s", seed, f.String())
	}
	r.Events = agent.Session().Events()
	require.NoError(t, harness.ValidateLog(r.Events), "seed %d: the log passes the invariant layer", seed)
	require.False(t, agent.Status().Running, "seed %d: the agent ends idle", seed)
	return r
}

// recordingProvider wraps the scripted provider and notes when each request was sent, as
// "<ms> <turn>.<step> attempt <n>", so a test can see an attempt start at the instant a retry
// was decided even when no event marks it.
type recordingProvider struct {
	inner    *sim.ScriptedProvider
	run      *run
	Requests []string
	// Conversations holds each request's messages, in request order.
	Conversations [][]harness.Entry
}

func (p *recordingProvider) Name() string { return p.inner.Name() }

func (p *recordingProvider) Stream(ctx context.Context, req harness.Request) (harness.Stream, error) {
	p.Requests = append(p.Requests, fmt.Sprintf("%d %d.%d attempt %d", p.run.nowMs(), req.Turn, req.Step, req.Attempt))
	p.Conversations = append(p.Conversations, req.Messages)
	return p.inner.Stream(ctx, req)
}

// lines renders events as "<virtual ms> <description>": the form the tests state stories in.
func lines(events []harness.Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = fmt.Sprintf("%d %s", e.Time, sim.Describe(e))
	}
	return out
}

// ofType returns the payloads of type T, in log order.
func ofType[T harness.EventData](events []harness.Event) []T {
	var out []T
	for _, e := range events {
		if d, ok := e.Data.(T); ok {
			out = append(out, d)
		}
	}
	return out
}

// lastTurnEnd returns the last turn/end of the log.
func lastTurnEnd(t *testing.T, events []harness.Event) harness.TurnEnd {
	t.Helper()
	ends := ofType[harness.TurnEnd](events)
	require.NotEmpty(t, ends, "the log has a turn/end")
	return ends[len(ends)-1]
}

// Actions.

func followupAt(at time.Duration, text string) action {
	return action{At: at, Name: "followup " + text, Do: func(r *run) error { _, err := r.Agent.Followup(text); return err }}
}

func steerAt(at time.Duration, text string) action {
	return action{At: at, Name: "steer " + text, Do: func(r *run) error { _, err := r.Agent.Steer(text); return err }}
}

func injectAt(at time.Duration, text string) action {
	return action{At: at, Name: "inject " + text, Do: func(r *run) error { _, err := r.Agent.Inject(text); return err }}
}

func cancelAt(at time.Duration, kind string, keepInbox bool) action {
	return action{At: at, Name: "cancel " + kind, Do: func(r *run) error {
		return r.Agent.Cancel(harness.CancelCause{Kind: kind}, keepInbox)
	}}
}

// Answers.

// toolCalls is an answer that streams the calls at once and finishes tool-calls.
func toolCalls(calls ...harness.Chunk) sim.Answer {
	var beats []sim.Beat
	for _, c := range calls {
		beats = append(beats, sim.Beat{Chunk: c})
	}
	beats = append(beats, sim.Beat{Chunk: harness.Chunk{Kind: harness.ChunkFinish, Finish: harness.FinishToolCalls}})
	return sim.Answer{Beats: beats}
}

// call is a tool-call chunk whose arguments are args.
func call(id, name, args string) harness.Chunk {
	return harness.Chunk{Kind: harness.ChunkToolCall, CallID: id, Name: name, Arguments: args}
}

// done is a completed text answer 100 ms after the request: the usual last step of a story.
func done(text string) sim.Answer {
	return sim.Text(100*time.Millisecond, text, harness.FinishCompleted)
}

// slowText streams "thinking" after 200 ms and " slowly" a second later, then completes: a
// request long enough for the user to act in the middle of it.
func slowText() sim.Answer {
	return sim.Answer{Beats: []sim.Beat{
		{After: 200 * time.Millisecond, Chunk: harness.Chunk{Kind: harness.ChunkText, Text: "thinking"}},
		{After: time.Second, Chunk: harness.Chunk{Kind: harness.ChunkText, Text: " slowly"}},
		{Chunk: harness.Chunk{Kind: harness.ChunkFinish, Finish: harness.FinishCompleted}},
	}}
}

// newIdleAgent builds an agent on a scheduler that is never run: enough for the calls that fail
// before touching the runtime.
func newIdleAgent(t *testing.T) *harness.Agent {
	t.Helper()
	s := sched.New(sched.Options{Seed: 1})
	a, err := harness.New(harness.Config{
		Provider: sim.NewScriptedProvider(providerName, s),
		Runtime:  s,
		Random:   rand.New(rand.NewSource(1)),
	})
	require.NoError(t, err)
	return a
}

func okTool(name string) harness.Tool {
	return harness.Tool{Name: name, Run: func(context.Context, string) (string, error) { return "ok", nil }}
}

func TestNewRefusesBadConfig(t *testing.T) {
	s := sched.New(sched.Options{Seed: 1})
	good := func() harness.Config {
		return harness.Config{Provider: sim.NewScriptedProvider(providerName, s), Runtime: s, Random: rand.New(rand.NewSource(1))}
	}
	cases := []struct {
		name    string
		change  func(c *harness.Config)
		message string
	}{
		{"nil provider", func(c *harness.Config) { c.Provider = nil }, "Provider is required"},
		{"empty provider name", func(c *harness.Config) { c.Provider = sim.NewScriptedProvider("", s) }, "Provider.Name() is empty"},
		{"negative MaxParallelToolCalls", func(c *harness.Config) { c.MaxParallelToolCalls = -1 }, "MaxParallelToolCalls -1 is negative"},
		{"duplicate tool names", func(c *harness.Config) { c.Tools = []harness.Tool{okTool("read"), okTool("write"), okTool("read")} }, `tool "read" is registered twice`},
		{"tool without Run", func(c *harness.Config) { c.Tools = []harness.Tool{{Name: "lazy"}} }, `tool "lazy" needs a name and a Run function`},
		{"tool without name", func(c *harness.Config) { c.Tools = []harness.Tool{{Run: okTool("x").Run}} }, `tool "" needs a name and a Run function`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := good()
			tc.change(&cfg)
			a, err := harness.New(cfg)
			require.Error(t, err)
			assert.Nil(t, a)
			assert.Contains(t, err.Error(), tc.message)
			assert.Contains(t, err.Error(), "harness: ", "errors carry the package prefix")
		})
	}
	a, err := harness.New(good())
	require.NoError(t, err, "the base config is good: each case fails for its own change alone")
	require.NotNil(t, a)
}

func TestNewRefusesInvalidPolicyNamingTheField(t *testing.T) {
	s := sched.New(sched.Options{Seed: 1})
	cases := []struct {
		field  string
		change func(p *harness.RetryPolicy)
	}{
		{"mode", func(p *harness.RetryPolicy) { p.Mode = "sometimes" }},
		{"initialDelayMs", func(p *harness.RetryPolicy) { p.InitialDelayMs = -1 }},
		{"maxDelayMs", func(p *harness.RetryPolicy) { p.MaxDelayMs = 100 }}, // below initialDelayMs 500
		{"jitterRatio", func(p *harness.RetryPolicy) { p.JitterRatio = 1.5 }},
		{"maxRetries", func(p *harness.RetryPolicy) { p.MaxRetries = 0 }},
	}
	for _, tc := range cases {
		t.Run(tc.field, func(t *testing.T) {
			policy := harness.DefaultRetryPolicy()
			tc.change(&policy)
			a, err := harness.New(harness.Config{Provider: sim.NewScriptedProvider(providerName, s), Runtime: s, RetryPolicy: &policy})
			assert.Nil(t, a)
			var policyErr *harness.PolicyError
			require.ErrorAs(t, err, &policyErr)
			assert.Equal(t, tc.field, policyErr.Field)
			assert.Contains(t, err.Error(), tc.field)
		})
	}
}

func TestSendWithUnknownKindFails(t *testing.T) {
	a := newIdleAgent(t)
	id, err := a.Send(harness.MessageKind("shout"), "hello")
	require.Error(t, err)
	assert.Empty(t, id)
	assert.Contains(t, err.Error(), `unknown message kind "shout"`)
	assert.Empty(t, a.Session().Events(), "a refused send logs nothing")
}

func TestCancelWithUnknownCauseFails(t *testing.T) {
	a := newIdleAgent(t)
	err := a.Cancel(harness.CancelCause{Kind: "boredom"}, false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `cause "boredom" is not user, parent, hook or disposed`)
	assert.Empty(t, a.Session().Events())
}

func TestDisposeWhileIdleRefusesLaterSendsAndMaintain(t *testing.T) {
	for _, seed := range seeds {
		maintained := false
		var disposeErrs []error
		r := play(t, seed, world{Actions: []action{
			followupAt(0, "hi"),
			{At: 500 * time.Millisecond, Name: "dispose", Do: func(r *run) error {
				disposeErrs = append(disposeErrs, r.Agent.Dispose())
				return nil
			}},
			followupAt(600*time.Millisecond, "late followup"),
			steerAt(600*time.Millisecond, "late steer"),
			injectAt(600*time.Millisecond, "late inject"),
			{At: 700 * time.Millisecond, Name: "maintain", Do: func(r *run) error {
				return r.Agent.Maintain(func(context.Context) error { maintained = true; return nil })
			}},
			{At: 800 * time.Millisecond, Name: "dispose again", Do: func(r *run) error {
				disposeErrs = append(disposeErrs, r.Agent.Dispose())
				return nil
			}},
		}})
		assert.Equal(t, []string{
			`0 user/message m1 "hi"`,
			`0 inbox/push m1 next-turn followup`,
			`0 turn/start 1`,
			`0 step/start 1.1`,
			`0 inbox/claim 1.1 m1 next-turn`,
			`100 assistant/chunk 1.1 text "ok"`,
			`100 assistant/chunk 1.1 finish completed`,
			`100 assistant/message 1.1 completed`,
			`100 step/end 1.1`,
			`100 turn/end 1 completed`,
		}, lines(r.Events), "seed %d: disposing an idle agent writes nothing, and nothing follows", seed)
		for _, name := range []string{"followup late followup", "steer late steer", "inject late inject", "maintain"} {
			assert.ErrorIs(t, r.ActionErrors[name], harness.ErrDisposed, "seed %d: %s", seed, name)
		}
		assert.False(t, maintained, "Maintain on a disposed agent does not run fn")
		assert.Equal(t, []error{nil, nil}, disposeErrs, "Dispose twice is fine")
		assert.Equal(t, 1, r.Provider.inner.Served())
	}
}

func TestWhenIdleReturnsAtOnceOnAnIdleAgent(t *testing.T) {
	for _, seed := range seeds {
		var errs []error
		waitAt := func(at time.Duration) action {
			return action{At: at, Name: fmt.Sprint("when idle ", at), Do: func(r *run) error {
				errs = append(errs, r.Agent.WhenIdle(context.Background()))
				r.mark("idle")
				return nil
			}}
		}
		r := play(t, seed, world{Actions: []action{
			waitAt(0), // before anything happened
			followupAt(100*time.Millisecond, "hi"),
			waitAt(500 * time.Millisecond), // after the turn ended at 200
		}})
		assert.Equal(t, []string{"0 idle", "500 idle"}, r.Marks, "seed %d", seed)
		assert.Equal(t, []error{nil, nil}, errs)
		assert.Equal(t, `200 turn/end 1 completed`, lines(r.Events)[len(r.Events)-1])
	}
}

func TestWhenIdleWaitsForAToolThatIgnoresCancellation(t *testing.T) {
	for _, seed := range seeds {
		var waitErr error
		r := play(t, seed, world{
			Answers: []sim.Answer{toolCalls(call("c1", "stuck", "{}"))},
			Tools: func(rt harness.Runtime) []harness.Tool {
				return []harness.Tool{sim.SleepTool(rt, "stuck", time.Second, false, false)}
			},
			Actions: []action{
				followupAt(0, "go"),
				{At: 300 * time.Millisecond, Name: "cancel and wait", Do: func(r *run) error {
					if err := r.Agent.Cancel(harness.CancelCause{Kind: harness.CauseUser}, false); err != nil {
						return err
					}
					r.RT.Go("waiter", func() {
						r.mark("waiting")
						waitErr = r.Agent.WhenIdle(context.Background())
						r.mark("idle")
					})
					return nil
				}},
			},
		})
		assert.Equal(t, []string{
			`0 user/message m1 "go"`,
			`0 inbox/push m1 next-turn followup`,
			`0 turn/start 1`,
			`0 step/start 1.1`,
			`0 inbox/claim 1.1 m1 next-turn`,
			`0 assistant/chunk 1.1 tool-call c1 stuck`,
			`0 assistant/chunk 1.1 finish tool-calls`,
			`0 assistant/message 1.1 tool-calls`,
			`0 tool/call 1.1 c1 stuck`,
			`1000 tool/result 1.1 c1 ok`,
			`1000 step/end 1.1`,
			`1000 turn/end 1 aborted(user)`,
		}, lines(r.Events), "seed %d", seed)
		assert.Equal(t, []string{"300 waiting", "1000 idle"}, r.Marks, "seed %d: WhenIdle returns when the stuck tool settles", seed)
		assert.NoError(t, waitErr)
	}
}

func TestWhenIdleEndsWithItsContext(t *testing.T) {
	for _, seed := range seeds {
		var waitErr error
		stop := errors.New("caller gave up")
		r := play(t, seed, world{
			Answers: []sim.Answer{toolCalls(call("c1", "stuck", "{}"))},
			Tools: func(rt harness.Runtime) []harness.Tool {
				return []harness.Tool{sim.SleepTool(rt, "stuck", time.Second, false, false)}
			},
			Actions: []action{
				followupAt(0, "go"),
				{At: 200 * time.Millisecond, Name: "wait", Do: func(r *run) error {
					ctx, cancel := context.WithCancelCause(context.Background())
					r.RT.Go("waiter", func() {
						waitErr = r.Agent.WhenIdle(ctx)
						r.mark("gave up")
					})
					r.RT.Go("giver-up", func() {
						_ = r.RT.Sleep(300 * time.Millisecond)
						cancel(stop)
					})
					return nil
				}},
			},
		})
		assert.Equal(t, []string{"500 gave up"}, r.Marks, "seed %d", seed)
		assert.ErrorIs(t, waitErr, stop)
		assert.Equal(t, `1100 turn/end 1 completed`, lines(r.Events)[len(r.Events)-1], "seed %d: nothing was cancelled but the wait", seed)
	}
}
