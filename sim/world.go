package sim

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"time"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
)

// livenessBoundMs is how long after the horizon the agent has to settle: long enough for the
// slowest planned work (five 30 s exclusive tool calls, a slow stream, a capped backoff) to drain.
const livenessBoundMs = 300_000

// virtualTimeMarginMs lets a run go on a little past the liveness deadline, so that a missed
// deadline is reported as a liveness violation and not as the scheduler's time limit.
const virtualTimeMarginMs = 60_000

// Outcome is everything one schedule's run produced.
type Outcome struct {
	Schedule   Schedule
	Log        []harness.Event
	JSONL      []byte
	Trace      properties.Trace
	Violations []properties.Violation
	Report     *RunReport
	// Digest is the SHA-256 of the JSON Lines log: equal logs, equal digests.
	Digest [sha256.Size]byte
	// Exercised lists the faults that actually struck, in catalogue order.
	Exercised []string
	// Outcomes lists the turn/end reason kinds the log holds, sorted, each once.
	Outcomes []string
}

// errLivenessDeadline ends the wait for the agent to settle.
var errLivenessDeadline = errors.New("sim: liveness deadline passed")

// RunSchedule plays one schedule in a fresh world on the deterministic scheduler and checks
// every property on the result. Worlds share nothing, so schedules may run in parallel.
func RunSchedule(schedule Schedule) Outcome {
	scheduler := NewScheduler(SchedulerOptions{
		Seed:           deriveSeed(schedule.Seed, streamScheduler),
		MaxVirtualTime: ms(schedule.Plan.HorizonMs + livenessBoundMs + virtualTimeMarginMs),
	})
	w := &world{tracer: newTracer(scheduler)}
	report := scheduler.Run("main", func() { playWorld(schedule, scheduler, w) })
	w.tracer.trace.EndMs = report.VirtualElapsed.Milliseconds()
	for _, f := range report.Findings {
		w.tracer.trace.Findings = append(w.tracer.trace.Findings, f.String())
	}
	return finishOutcome(schedule, w.agent, w.tracer, report)
}

// world is one schedule's agent and the tracer watching it.
type world struct {
	agent  *harness.Agent
	tracer *tracer
	// watchers counts the WhenIdle watchers started; each puts to watchersDone when it returns.
	watchers     int
	watchersDone harness.Queue
}

// playWorld builds the schedule's world on rt and plays it into w: the user's actions in time
// order, then the liveness phase. It runs in a task of rt (the scheduler's main task, or a
// goroutine of the production runtime). w is filled as soon as the agent exists, so a run that
// ends early still leaves its log behind.
func playWorld(schedule Schedule, rt harness.Runtime, w *world) {
	plan := schedule.Plan
	deadline := ms(plan.HorizonMs + livenessBoundMs)
	t := w.tracer
	agent, err := buildAgent(schedule, rt, t)
	if err != nil {
		panic(fmt.Sprintf("sim: invariant: a validated schedule built no agent: %v", err))
	}
	w.agent = agent
	w.watchersDone = rt.NewQueue("idle watchers")
	playUser(rt, w, plan.Actions)
	idleCtx, stopWaiting := context.WithCancelCause(context.Background())
	timerCtx, stopTimer := context.WithCancelCause(context.Background())
	rt.Go("liveness deadline", func() {
		if rt.Sleep(deadline-t.elapsed(), timerCtx) == nil {
			stopWaiting(errLivenessDeadline)
		}
	})
	settled := agent.WhenIdle(idleCtx) == nil
	stopTimer(errLivenessDeadline)
	if !settled {
		return
	}
	now := t.nowMs()
	t.mu.Lock()
	t.trace.IdleAtMs = now
	t.mu.Unlock()
	for range w.watchers {
		w.watchersDone.Get(context.Background())
	}
}

// buildAgent makes the schedule's agent on the scheduler, its provider, tools and store.
func buildAgent(schedule Schedule, rt harness.Runtime, t *tracer) (*harness.Agent, error) {
	plan := schedule.Plan
	policy := plan.Policy
	var handlers []harness.RequestErrorHandler
	if plan.CompactionBudget > 0 {
		handlers = append(handlers, &harness.CompactionHandler{BudgetPerStep: plan.CompactionBudget})
	}
	agent, err := harness.New(harness.Config{
		Provider:             &planProvider{runtime: rt, tracer: t, plan: &schedule.Plan},
		Runtime:              tracingRuntime{Runtime: rt, tracer: t},
		Random:               rand.New(rand.NewSource(deriveSeed(schedule.Seed, streamHarness))),
		Store:                &refusingStore{tracer: t, windows: plan.Refusals, horizon: plan.HorizonMs},
		RetryPolicy:          &policy,
		Handlers:             handlers,
		Tools:                planTools(rt, t),
		MaxParallelToolCalls: plan.MaxParallelToolCalls,
		OnError:              t.agentError,
	})
	t.agent = agent
	if err == nil {
		agent.Session().Observe(func(e harness.Event) {
			if r, ok := e.Data.(harness.ToolResult); ok && r.Error != nil && r.Error.Code == harness.CodeToolNotFound {
				t.strike(faults.ToolUnknown)
			}
		})
	}
	return agent, err
}

// playUser performs the plan's actions in time order, in the calling task.
func playUser(s harness.Runtime, w *world, actions []faults.Action) {
	for _, a := range actions {
		if wait := ms(a.AtMs) - w.tracer.elapsed(); wait > 0 {
			s.Sleep(wait)
		}
		perform(s, w, a)
	}
}

// perform does one action and records it in the trace.
func perform(s harness.Runtime, w *world, a faults.Action) {
	t, agent := w.tracer, w.agent
	t.strike(a.Fault)
	switch a.Kind {
	case faults.ActFollowup, faults.ActSteer, faults.ActInject:
		seqAt := int64(agent.Session().Len())
		id, err := agent.Send(harness.MessageKind(a.Kind), a.Text)
		send := properties.Send{AtMs: t.nowMs(), SeqAt: seqAt, Kind: a.Kind, MessageID: id}
		if err != nil {
			send.Err = err.Error()
		}
		t.mu.Lock()
		t.trace.Sends = append(t.trace.Sends, send)
		t.mu.Unlock()
	case faults.ActCancel, faults.ActDispose, faults.ActPluginEnd:
		status := agent.Status()
		c := properties.Cancel{AtMs: t.nowMs(), SeqAt: int64(agent.Session().Len()), Kind: a.Cause, Reason: a.Reason, KeepInbox: a.KeepInbox, Running: status.Running, Turn: status.Turn}
		switch a.Kind {
		case faults.ActDispose:
			c.Kind, c.KeepInbox = harness.CauseDisposed, true
		case faults.ActPluginEnd:
			c.Kind = "plugin-end"
		}
		t.mu.Lock()
		t.trace.Cancels = append(t.trace.Cancels, c)
		t.mu.Unlock()
		switch a.Kind {
		case faults.ActCancel:
			agent.Cancel(harness.CancelCause{Kind: a.Cause, Reason: a.Reason}, a.KeepInbox)
		case faults.ActDispose:
			agent.Dispose()
		case faults.ActPluginEnd:
			agent.DisposeRetryPlugin()
		}
	case faults.ActWaitIdle:
		w.watchers++
		s.Go("idle watcher", func() {
			defer w.watchersDone.Put(nil)
			if agent.WhenIdle(context.Background()) == nil {
				running, now := agent.Status().Running, t.nowMs()
				t.mu.Lock()
				t.trace.IdleReturns = append(t.trace.IdleReturns, properties.IdleReturn{AtMs: now, ToolsRunning: t.toolsRunning, Running: running})
				t.mu.Unlock()
			}
		})
	default:
		panic(fmt.Sprintf("sim: invariant: a validated plan has an action of kind %q", a.Kind))
	}
}

// finishOutcome encodes the log, checks the properties and gathers coverage.
func finishOutcome(schedule Schedule, agent *harness.Agent, t *tracer, report *RunReport) Outcome {
	out := Outcome{Schedule: schedule, Trace: t.trace, Report: report}
	if agent != nil {
		out.Log = agent.Session().Events()
	}
	var buf bytes.Buffer
	if err := harness.WriteJSONL(&buf, out.Log); err != nil {
		panic(fmt.Sprintf("sim: invariant: the session log does not encode: %v", err))
	}
	out.JSONL = buf.Bytes()
	out.Digest = sha256.Sum256(out.JSONL)
	plan := schedule.Plan
	out.Violations = properties.Check(&properties.Run{
		Log:                  out.Log,
		JSONL:                out.JSONL,
		Trace:                t.trace,
		Policy:               plan.Policy,
		MaxParallelToolCalls: plan.MaxParallelToolCalls,
		ParallelTools:        faults.ParallelTools,
		ExclusiveTools:       faults.ExclusiveTools,
		CompactionBudget:     plan.CompactionBudget,
		StartMs:              t.start.UnixMilli(),
		HorizonMs:            plan.HorizonMs,
		LivenessBoundMs:      livenessBoundMs,
	})
	for _, name := range faults.Names() {
		if t.exercised[name] > 0 {
			out.Exercised = append(out.Exercised, name)
		}
	}
	for _, e := range out.Log {
		if end, ok := e.Data.(harness.TurnEnd); ok && !slices.Contains(out.Outcomes, end.Reason.Kind) {
			out.Outcomes = append(out.Outcomes, end.Reason.Kind)
		}
	}
	slices.Sort(out.Outcomes)
	return out
}

// VirtualDuration is how much virtual time the run covered.
func (o Outcome) VirtualDuration() time.Duration { return o.Report.VirtualElapsed }

// PlaySchedule plays a schedule on another runtime, in the calling goroutine: the production
// runtime inside a testing/synctest bubble, for instance, to compare its speed with the
// scheduler's. Only the scheduler makes a run reproducible; elsewhere the log may differ from
// run to run, and the properties are checked all the same.
func PlaySchedule(schedule Schedule, rt harness.Runtime) Outcome {
	w := &world{tracer: newTracer(rt)}
	playWorld(schedule, rt, w)
	elapsed := w.tracer.elapsed()
	w.tracer.trace.EndMs = elapsed.Milliseconds()
	return finishOutcome(schedule, w.agent, w.tracer, &RunReport{VirtualElapsed: elapsed})
}
