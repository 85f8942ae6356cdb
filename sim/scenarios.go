package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"time"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/sim/sched"
)

// UserAction is something the user (or host) does to the agent at a fixed time from the start.
type UserAction struct {
	At   time.Duration
	Name string
	Do   func(a *harness.Agent) error
}

// ScenarioSpec is a scripted world: the policy, the provider's answers in order, the tools and
// what the user does when.
type ScenarioSpec struct {
	Policy               harness.RetryPolicy
	Answers              []Answer
	Tools                func(rt harness.Runtime) []harness.Tool
	MaxParallelToolCalls int
	Actions              []UserAction
}

// Scenario is one of the seed article's named scenarios. Build receives a time scale, so the
// same story runs in virtual time at full length and on the production runtime in a few
// milliseconds.
type Scenario struct {
	Name  string
	Doc   string
	Build func(scale Scale) ScenarioSpec
}

// Scale shrinks a scenario's durations: 1 keeps them, 0.02 runs a 1 s story in 20 ms.
type Scale float64

// D scales a duration.
func (s Scale) D(d time.Duration) time.Duration { return time.Duration(float64(d) * float64(s)) }

// Ms scales milliseconds.
func (s Scale) Ms(ms float64) float64 { return ms * float64(s) }

// ScenarioResult is what a scenario run left behind.
type ScenarioResult struct {
	Events       []harness.Event
	AgentErrors  []harness.AgentError
	ActionErrors map[string]error
	// Idle is whether the agent was idle when the run ended.
	Idle bool
	// Report is the scheduler's report, for simulated runs only.
	Report *sched.RunReport
}

// scenarioProvider is the provider name every scenario uses.
const scenarioProvider = "scripted"

// PlayScenario runs spec on rt and waits until every action is done and the agent is idle. On
// the simulator it must run inside a task (SimulateScenario does that); on the production
// runtime it runs in the caller's goroutine.
func PlayScenario(spec ScenarioSpec, rt harness.Runtime, seed int64) (ScenarioResult, error) {
	result := ScenarioResult{ActionErrors: map[string]error{}}
	var tools []harness.Tool
	if spec.Tools != nil {
		tools = spec.Tools(rt)
	}
	policy := spec.Policy
	agent, err := harness.New(harness.Config{
		Provider:             NewScriptedProvider(scenarioProvider, rt, spec.Answers...),
		Runtime:              rt,
		Random:               rand.New(rand.NewSource(seed)),
		RetryPolicy:          &policy,
		Tools:                tools,
		MaxParallelToolCalls: spec.MaxParallelToolCalls,
		OnError:              func(e harness.AgentError) { result.AgentErrors = append(result.AgentErrors, e) },
	})
	if err != nil {
		return result, err
	}
	actions := append([]UserAction(nil), spec.Actions...)
	sort.SliceStable(actions, func(i, j int) bool { return actions[i].At < actions[j].At })
	// One user task performs the actions in time order, so actions at distinct times never race.
	done := rt.NewQueue("user done")
	rt.Go("user", func() {
		var elapsed time.Duration
		for _, action := range actions {
			if err := rt.Sleep(action.At - elapsed); err != nil {
				panic("sim: the user's sleep was cancelled: " + err.Error())
			}
			elapsed = action.At
			if err := action.Do(agent); err != nil {
				result.ActionErrors[action.Name] = err
			}
		}
		done.Put(nil)
	})
	if _, err := done.Get(context.Background()); err != nil {
		return result, err
	}
	if err := agent.WhenIdle(context.Background()); err != nil {
		return result, err
	}
	result.Events = agent.Session().Events()
	result.Idle = !agent.Status().Running
	return result, nil
}

// SimulateScenario runs the named scenario in virtual time on the deterministic scheduler.
func SimulateScenario(name string, seed int64) (ScenarioResult, error) {
	sc, ok := ScenarioByName(name)
	if !ok {
		return ScenarioResult{}, fmt.Errorf("sim: unknown scenario %q (known: %v)", name, ScenarioNames())
	}
	s := sched.New(sched.Options{Seed: seed, MaxVirtualTime: time.Hour})
	var result ScenarioResult
	var playErr error
	report := s.Run("main", func() {
		result, playErr = PlayScenario(sc.Build(1), s, seed)
	})
	result.Report = report
	if playErr != nil {
		return result, playErr
	}
	if len(report.Findings) > 0 {
		return result, fmt.Errorf("sim: scenario %s: %s", name, report.Findings[0].String())
	}
	return result, nil
}

// ScenarioNames lists the scenarios in a stable order.
func ScenarioNames() []string {
	names := make([]string, len(scenarios))
	for i, sc := range scenarios {
		names[i] = sc.Name
	}
	return names
}

// ScenarioByName finds a scenario.
func ScenarioByName(name string) (Scenario, bool) {
	for _, sc := range scenarios {
		if sc.Name == name {
			return sc, true
		}
	}
	return Scenario{}, false
}

// Scenarios returns every scenario in a stable order.
func Scenarios() []Scenario { return append([]Scenario(nil), scenarios...) }

// Actions the scenarios use.
func followup(at time.Duration, text string) UserAction {
	return UserAction{At: at, Name: "followup " + text, Do: func(a *harness.Agent) error { _, err := a.Followup(text); return err }}
}

func steer(at time.Duration, text string) UserAction {
	return UserAction{At: at, Name: "steer " + text, Do: func(a *harness.Agent) error { _, err := a.Steer(text); return err }}
}

func cancel(at time.Duration, kind string, keepInbox bool) UserAction {
	return UserAction{At: at, Name: "cancel " + kind, Do: func(a *harness.Agent) error {
		return a.Cancel(harness.CancelCause{Kind: kind}, keepInbox)
	}}
}

func dispose(at time.Duration) UserAction {
	return UserAction{At: at, Name: "dispose", Do: func(a *harness.Agent) error { return a.Dispose() }}
}

// ErrStreamReset is the plain Go error the finally scenario's stream fails with.
var ErrStreamReset = errors.New("connection reset by peer")

func scaledPolicy(s Scale, mode harness.Mode) harness.RetryPolicy {
	p := harness.DefaultRetryPolicy()
	p.InitialDelayMs, p.MaxDelayMs = s.Ms(p.InitialDelayMs), s.Ms(p.MaxDelayMs)
	if mode == harness.ModeAlways {
		p.Mode, p.MaxRetries = harness.ModeAlways, 0
	}
	return p
}

func toolCalls(calls ...harness.Chunk) Answer {
	var beats []Beat
	for _, c := range calls {
		beats = append(beats, Beat{Chunk: c})
	}
	beats = append(beats, Beat{Chunk: harness.Chunk{Kind: harness.ChunkFinish, Finish: harness.FinishToolCalls}})
	return Answer{Beats: beats}
}

func call(id, name string) harness.Chunk {
	return harness.Chunk{Kind: harness.ChunkToolCall, CallID: id, Name: name, Arguments: `{"n":"` + id + `"}`}
}

// scenarios are the seed article's stories, in the order the article tells them.
var scenarios = []Scenario{
	{
		Name: "durable-before-wait",
		Doc:  "one RATE_LIMIT, then success: llm/retry is written at the failure instant, before the wait",
		Build: func(s Scale) ScenarioSpec {
			return ScenarioSpec{
				Policy:  scaledPolicy(s, harness.ModeNormal),
				Answers: []Answer{Fail(s.D(100*time.Millisecond), Failure(harness.CodeRateLimit, "rate limited")), Text(s.D(100*time.Millisecond), "hello", harness.FinishCompleted)},
				Actions: []UserAction{followup(0, "hi")},
			}
		},
	},
	{
		Name: "sticky-max-tokens",
		Doc:  "step 1 ends max-tokens, a steer arrives, step 2 completes: the turn still ends max-tokens",
		Build: func(s Scale) ScenarioSpec {
			step1 := Answer{Beats: []Beat{
				{After: s.D(100 * time.Millisecond), Chunk: harness.Chunk{Kind: harness.ChunkText, Text: "the answer is"}},
				{After: s.D(100 * time.Millisecond), Chunk: harness.Chunk{Kind: harness.ChunkText, Text: " cut"}},
				{Chunk: harness.Chunk{Kind: harness.ChunkFinish, Finish: harness.FinishMaxTokens}},
			}}
			return ScenarioSpec{
				Policy:  scaledPolicy(s, harness.ModeNormal),
				Answers: []Answer{step1, Text(s.D(100*time.Millisecond), "done", harness.FinishCompleted)},
				Actions: []UserAction{followup(0, "write"), steer(s.D(150*time.Millisecond), "go on")},
			}
		},
	},
	{
		Name: "drain",
		Doc:  "three 1 s tool calls, one at a time, a user cancel at 0.5 s: the started call drains, the others get synthetic results",
		Build: func(s Scale) ScenarioSpec {
			return ScenarioSpec{
				Policy:  scaledPolicy(s, harness.ModeNormal),
				Answers: []Answer{toolCalls(call("c1", "slow"), call("c2", "slow"), call("c3", "slow"))},
				Tools: func(rt harness.Runtime) []harness.Tool {
					return []harness.Tool{SleepTool(rt, "slow", s.D(time.Second), true, false)}
				},
				MaxParallelToolCalls: 1,
				Actions:              []UserAction{followup(0, "run them"), cancel(s.D(500*time.Millisecond), harness.CauseUser, false)},
			}
		},
	},
	{
		Name: "finally",
		Doc:  "the stream fails with a wrapped plain Go error: agent/error, and turn/end error UNKNOWN with the whole chain",
		Build: func(s Scale) ScenarioSpec {
			err := fmt.Errorf("read stream: %w", fmt.Errorf("read tcp: %w", ErrStreamReset))
			return ScenarioSpec{
				Policy:  scaledPolicy(s, harness.ModeNormal),
				Answers: []Answer{{Beats: []Beat{{After: s.D(100 * time.Millisecond), Chunk: harness.Chunk{Kind: harness.ChunkText, Text: "par"}}}, FailAfter: 1, FailDelay: s.D(100 * time.Millisecond), Err: err}},
				Actions: []UserAction{followup(0, "hi")},
			}
		},
	},
	{
		Name: "cancel-mid-backoff",
		Doc:  "RATE_LIMIT, llm/retry, a user cancel 200 ms into the wait: no llm/retry-started, turn/end aborted at that instant",
		Build: func(s Scale) ScenarioSpec {
			return ScenarioSpec{
				Policy:  scaledPolicy(s, harness.ModeNormal),
				Answers: []Answer{Fail(s.D(100*time.Millisecond), Failure(harness.CodeRateLimit, "rate limited"))},
				Actions: []UserAction{followup(0, "hi"), cancel(s.D(300*time.Millisecond), harness.CauseUser, false)},
			}
		},
	},
	{
		Name: "retry-then-max-tokens",
		Doc:  "two steps, each with one RATE_LIMIT and a successful retry (two chains); step 1 max-tokens, step 2 completed: turn/end max-tokens",
		Build: func(s Scale) ScenarioSpec {
			limited := Fail(s.D(100*time.Millisecond), Failure(harness.CodeRateLimit, "rate limited"))
			return ScenarioSpec{
				Policy: scaledPolicy(s, harness.ModeNormal),
				Answers: []Answer{
					limited, Text(s.D(100*time.Millisecond), "truncated", harness.FinishMaxTokens),
					limited, Text(s.D(100*time.Millisecond), "done", harness.FinishCompleted),
				},
				Actions: []UserAction{followup(0, "write"), steer(s.D(400*time.Millisecond), "continue")},
			}
		},
	},
	{
		Name: "disposed-no-wake",
		Doc:  "a followup queued during a turn, then dispose (keepInbox): the turn ends aborted(disposed), no turn follows, a later send fails",
		Build: func(s Scale) ScenarioSpec {
			slow := Answer{Beats: []Beat{
				{After: s.D(200 * time.Millisecond), Chunk: harness.Chunk{Kind: harness.ChunkText, Text: "thinking"}},
				{After: s.D(time.Second), Chunk: harness.Chunk{Kind: harness.ChunkText, Text: " slowly"}},
				{Chunk: harness.Chunk{Kind: harness.ChunkFinish, Finish: harness.FinishCompleted}},
			}}
			return ScenarioSpec{
				Policy:  scaledPolicy(s, harness.ModeNormal),
				Answers: []Answer{slow},
				Actions: []UserAction{
					followup(0, "first"), followup(s.D(300*time.Millisecond), "second"), dispose(s.D(500 * time.Millisecond)),
					followup(s.D(2*time.Second), "too late"),
				},
			}
		},
	},
	{
		Name: "always-mode",
		Doc:  "always mode: eight RATE_LIMITs then success; no limit applies and every delay follows the formula, capped at maxDelay",
		Build: func(s Scale) ScenarioSpec {
			var answers []Answer
			for range 8 {
				answers = append(answers, Fail(s.D(100*time.Millisecond), Failure(harness.CodeRateLimit, "rate limited")))
			}
			answers = append(answers, Text(s.D(100*time.Millisecond), "finally", harness.FinishCompleted))
			return ScenarioSpec{Policy: scaledPolicy(s, harness.ModeAlways), Answers: answers, Actions: []UserAction{followup(0, "hi")}}
		},
	},
	{
		Name: "retry-after",
		Doc:  "a Retry-After of 3 s is used exactly; a later one of 60 s (above maxDelay) makes normal mode give up with that failure",
		Build: func(s Scale) ScenarioSpec {
			return ScenarioSpec{
				Policy:  scaledPolicy(s, harness.ModeNormal),
				Answers: []Answer{Fail(s.D(100*time.Millisecond), RetryAfter(s.D(3*time.Second))), Fail(s.D(100*time.Millisecond), RetryAfter(s.D(60*time.Second)))},
				Actions: []UserAction{followup(0, "hi")},
			}
		},
	},
}
