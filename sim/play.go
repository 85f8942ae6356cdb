package sim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"time"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/filestore"
	"github.com/turnsim/turnsim/internal/splitmix"
	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim/sched"
)

// world is one schedule being played: the agent (its current incarnation, if crashes restart
// it), the store that holds what is durable, and the tracer watching it all.
type world struct {
	schedule Schedule
	rt       harness.Runtime
	// scheduler is the deterministic scheduler, or nil on another runtime (which cannot kill a
	// group of tasks, so crash actions are skipped there).
	scheduler *sched.Scheduler
	// user is the user's part of the agent's configuration (the zero Agent: turnsim's own), and
	// userTools what the world knows of its tools (nil: turnsim's simulated tools).
	user      Agent
	userTools *userTools
	// compactionBudget is the budget of the compaction handler the agent runs with (0: none).
	compactionBudget int
	// compactionFailures is how many of the deliberating compaction handler's decisions are
	// still to fail (Plan.CompactionFailures), through every incarnation.
	compactionFailures int
	tracer             *tracer
	store              *simStore // the current incarnation's
	provider           *planProvider
	// keepDurable is set when the plan crashes the agent: then the agent's log goes through the
	// real file store (harness/filestore) to the simulated disk, and armed is a crash waiting for
	// the next append of an agent task.
	keepDurable bool
	disk        *disk
	// firstParts are the first incarnation's parts, an earlier run's when a sweep's scratch lent
	// them. Taken from the scratch when the world is made, on Run's goroutine: no task of the run
	// (which may hang, and outlive it) ever reaches the scratch, which serves the next seed.
	firstParts *incarnationParts
	// opened is what the last open of the session log read: a restart decodes only the lines
	// the log gained since (filestore.ReopenFS).
	opened filestore.Opened
	armed  *faults.Action
	// reached is how many of the plan's actions the user has come to (performed, or started in a
	// racing task): the place in the user's script an aimed action that lands now takes.
	reached int
	// calling counts the world's calls into the agent under way (perform), from its own tasks or
	// from an agent's task (an observer's callback, an aimed action at a preemption point). A crash
	// armed to strike inside an append never strikes inside one: the call may hold the agent's lock
	// across its appends (Send does), and the dying task would take it to its grave.
	calling int
	// refusedCount counts, per refusal window, the appends it refused (nil without windows).
	refusedCount []int
	// refused is set once the store refused an append: from then on an accepted append may
	// retake a refused event's seq (tracer.seqRetaken).
	refused bool
	// acknowledged are the current incarnation's events whose append returned (its history too):
	// a prefix of its session's log, never a copy of it (Session.Log).
	acknowledged []harness.Event
	// tools are turnsim's simulated tools, made by the first incarnation and given to the next
	// ones (empty with the user's tools).
	tools []harness.Tool
	// keyed is the plan's retry policy with its key worked out, made by the first incarnation
	// and lent to the next ones (a key is never empty once worked out): a key is the policy's
	// (RetryPolicy.PolicyKey), so an agent given it derives nothing else, and no restart formats
	// the policy's floats again. The plan itself keeps its policy as drawn (a
	// saved schedule records no key). It lives in the world, not in an allocation of its own.
	keyed harness.RetryPolicy

	agent       *harness.Agent
	process     *sched.Process // the current incarnation's tasks (nil off the scheduler)
	incarnation int
	// life ends when the current incarnation dies: waits on it (WhenIdle) stop then.
	life    context.Context
	endLife context.CancelCauseFunc
	down    bool // between a crash and its restart, or for good if the restart failed
	failed  bool // a restart failed: the agent stays down
	// host receives restart requests; its task restarts the agent after the requested delay.
	host      harness.Queue
	restarted harness.Queue
	disposed  bool

	// armedObservers are observer callbacks whose time has come, waiting for their event.
	armedObservers []armedObserver
	// planned is what the plan's actions hold, counted once (countActions).
	planned plannedActions

	watchers     int
	watchersDone harness.Queue
	cancelWait   context.CancelCauseFunc
	pastDeadline bool
}

// errCrashed ends an incarnation's life: its process died.
var errCrashed = errors.New("sim: the agent's process crashed")

func newWorld(schedule Schedule, rt harness.Runtime, scheduler *sched.Scheduler, user Agent) *world {
	return newWorldWith(schedule, rt, scheduler, user, nil)
}

// newWorldWith is newWorld building the world in the parts and trace arrays an earlier run left
// in s (nil: fresh ones).
func newWorldWith(schedule Schedule, rt harness.Runtime, scheduler *sched.Scheduler, user Agent, s *scratch) *world {
	parts := s.takeParts()
	w, t := &parts.world, &parts.tracer
	t.init(rt, scheduler)
	user = user.Seeded() // its state lives as long as this world, through every incarnation
	*w = world{schedule: schedule, rt: rt, scheduler: scheduler, tracer: t, user: user, firstParts: s.takeIncarnation()}
	w.userTools = newUserTools(user, rt, schedule.Seed)
	parts.provider = planProvider{runtime: rt, tracer: t, plan: &w.schedule.Plan, userTools: w.userTools, world: w, streams: parts.streams[:]}
	w.provider = &parts.provider
	s.lendTrace(t, w.provider)
	w.tools = s.lendTools(parts.tools[:0], rt, t)
	w.planned = countActions(schedule.Plan.Actions)
	w.compactionFailures = schedule.Plan.CompactionFailures
	t.aimer = newAimer(w)
	w.keepDurable = scheduler != nil && w.planned.crashes // only the scheduler can crash the agent
	if w.keepDurable {
		w.disk = newDisk()
		w.disk.die = func(crash faults.Action) {
			w.crash(crash, 0)
			runtime.Goexit() // the process died inside the write: the append never returns
		}
	}
	if n := len(schedule.Plan.Refusals); n > 0 && n <= len(parts.refused) {
		w.refusedCount = parts.refused[:n]
	} else if n > 0 {
		w.refusedCount = make([]int, n)
	}
	return w
}

// play builds the world and plays it: the user's actions in time order, then the liveness
// phase. It runs in a task of the world's runtime. The agent is in place as soon as it exists,
// so a run that ends early still leaves its log behind.
func (w *world) play() {
	plan := w.schedule.Plan
	var log *filestore.Store
	if w.keepDurable {
		var err error
		if log, _, err = filestore.OpenFS(w.disk, sessionLogPath); err != nil {
			panic(fmt.Sprintf("sim: invariant: the file store does not open an empty simulated disk: %v", err))
		}
	}
	if err := w.startIncarnation(nil, log); err != nil {
		panic(fmt.Sprintf("sim: invariant: a validated schedule built no agent: %v", err))
	}
	// A queue is made only for what the plan does: idle watchers, restarts (only a plan that
	// crashes the agent has them) and racing users each need one; a run makes only those it uses.
	w.watchersDone = w.queueIf(w.planned.idleWaits, "idle watchers")
	if w.keepDurable {
		w.restarted = w.rt.NewQueue("restarts")
		w.host = w.rt.NewQueue("host")
		w.rt.Go("host", w.serveRestarts)
	}
	racers, racersDone := 0, w.queueIf(w.planned.races, "racing users")
	for i := range plan.Actions {
		a := &plan.Actions[i] // the plan's, read only: not a copy (184 bytes) for every action
		if wait := ms(a.AtMs) - w.tracer.elapsed(); wait > 0 {
			w.rt.Sleep(wait)
		}
		// A same-instant race needs the scheduler: on real goroutines the trace could not tell
		// which of the two (or the driver they wake) went first, and the properties judge by
		// that order. Off it, like crashes and observer callbacks, races are skipped.
		if a.Concurrent && w.scheduler == nil {
			continue
		}
		w.reached = i + 1
		if a.Concurrent {
			// The action by its place in the plan, which the run never changes: a copy of it
			// (184 bytes) was captured by reference, an allocation of its own.
			action := i + 1
			racers++
			w.rt.Go("racing user", func() {
				defer racersDone.Put(nil)
				w.perform(action, a)
			})
			continue
		}
		w.perform(i+1, a)
	}
	for range racers {
		racersDone.Get(context.Background()) // their sends and cancels are the user's last word
	}
	settled := w.awaitSettled(ms(plan.HorizonMs + livenessBoundMs))
	if w.host != nil {
		w.host.Put(stopHost{})
	}
	if !settled {
		return
	}
	now := w.tracer.nowMs()
	w.tracer.mu.Lock()
	w.tracer.trace.IdleAtMs = now
	w.tracer.mu.Unlock()
	for range w.watchers {
		w.watchersDone.Get(context.Background())
	}
}

// plannedActions is what a plan's actions hold, for what a world makes only when its plan needs
// it (a queue, the durable log) and for the room its records start with: one pass over the
// actions, where there was one for each.
type plannedActions struct {
	// sends and cancels are how many actions, an observer's among them, perform records as a
	// send, and as a cancel; observers how many observer actions there are.
	sends, cancels, observers int
	// crashes, idleWaits and races tell whether there is a crash, an idle wait, and a same-
	// instant race.
	crashes, idleWaits, races bool
	// aimed counts the aimed actions (aim.go).
	aimed int
}

// countActions is what actions hold. Switches, not a test per kind: a plan of a dozen actions
// made a hundred string comparisons.
func countActions(actions []faults.Action) plannedActions {
	var p plannedActions
	for i := range actions {
		a := &actions[i]
		kind := a.Kind
		switch kind {
		case faults.ActObserver:
			p.observers++
			kind = a.Then // what it records, it records as the action it takes
		case faults.ActCrash:
			p.crashes = true
		case faults.ActWaitIdle, faults.ActMaintain:
			p.idleWaits = true // each runs in a watcher task the world waits for
		case faults.ActAtTimer, faults.ActDuringTool, faults.ActAtSite:
			p.aimed++
			kind = a.Then // what it records, it records as what it does
		}
		switch kind { // as perform records them
		case faults.ActFollowup, faults.ActSteer, faults.ActInject:
			p.sends++
		case faults.ActCancel, faults.ActDispose, faults.ActPluginEnd:
			p.cancels++
		}
		p.races = p.races || a.Concurrent
	}
	return p
}

// watch runs fn in a task of its own that the world waits for before it ends (an idle watcher, a
// maintenance).
func (w *world) watch(name string, fn func()) {
	w.watchers++
	w.rt.Go(name, func() {
		defer w.watchersDone.Put(nil)
		fn()
	})
}

// queueIf is a new queue named name if needed, nil if not.
func (w *world) queueIf(needed bool, name string) harness.Queue {
	if !needed {
		return nil
	}
	return w.rt.NewQueue(name)
}

// processNames are the names of the first incarnations' processes: made once, not concatenated
// for every incarnation of every run.
var processNames = [...]string{"agent#0", "agent#1", "agent#2", "agent#3", "agent#4", "agent#5", "agent#6", "agent#7"}

// processName is the name of the process of the agent's incarnation-th incarnation: agent#n.
func processName(incarnation int) string {
	if incarnation >= 0 && incarnation < len(processNames) {
		return processNames[incarnation]
	}
	return "agent#" + strconv.Itoa(incarnation)
}

// logLen is the current incarnation's session log length (0 before the first): where a wait
// starts or an answer ends, for the properties to order them against the log.
func (w *world) logLen() int64 {
	if w.agent == nil {
		return 0
	}
	return int64(w.agent.Session().Len())
}

// awaitSettled waits until the current incarnation is idle, through crashes and restarts, or
// until the deadline. It reports whether the agent settled in time.
func (w *world) awaitSettled(deadline time.Duration) bool {
	timerCtx, stopTimer := context.WithCancelCause(context.Background())
	defer stopTimer(errLivenessDeadline)
	w.rt.Go("liveness deadline", func() {
		if w.rt.Sleep(deadline-w.tracer.elapsed(), timerCtx) == nil {
			w.pastDeadline = true
			if w.cancelWait != nil {
				w.cancelWait(errLivenessDeadline)
			}
		}
	})
	for !w.pastDeadline {
		if w.down {
			if w.failed {
				return false
			}
			w.restarted.Get(context.Background())
			continue
		}
		ctx, cancel := context.WithCancelCause(w.life)
		w.cancelWait = cancel
		err := w.agent.WhenIdle(ctx)
		cancel(nil)
		w.cancelWait = nil
		if err == nil {
			return true
		}
	}
	return false
}

// startIncarnation builds an agent (from history, after a crash) on a fresh process; log is the
// file store it writes through (nil when the plan crashes nothing: then nothing is kept).
func (w *world) startIncarnation(history *harness.ValidatedHistory, log *filestore.Store) error {
	plan := &w.schedule.Plan // not a copy: &plan.Policy below made each copy escape to the heap
	w.incarnation++
	incarnation := w.incarnation
	var rt harness.Runtime = w.rt
	if w.scheduler != nil {
		w.process = w.scheduler.NewProcess(processName(incarnation))
		rt = w.process
	}
	var policy *harness.RetryPolicy // nil: the harness's own defaults, judged by the spec's the plan records
	poolLimit := 0
	if !plan.HarnessDefaults {
		if w.keyed.Key == "" {
			w.keyed = plan.Policy
			w.keyed.Key = w.keyed.PolicyKey()
		}
		policy, poolLimit = &w.keyed, plan.MaxParallelToolCalls
	}
	// What the incarnation keeps for its life, allocated as one (incarnationParts): the first
	// incarnation's an earlier run's, when it left them.
	var parts *incarnationParts
	if incarnation == 1 {
		parts = w.firstParts
	} else {
		parts = new(incarnationParts)
	}
	if w.user.MaxParallelToolCalls > 0 {
		poolLimit = w.user.MaxParallelToolCalls
	}
	t := w.tracer
	var handlers []harness.RequestErrorHandler
	if w.user.NewHandlers != nil {
		handlers = w.user.NewHandlers(rt)
		w.compactionBudget = compactionBudgetOf(handlers)
		handlers = countHandlerRetries(handlers, t)
	} else if plan.CompactionBudget > 0 {
		w.compactionBudget = plan.CompactionBudget
		parts.compaction = harness.CompactionHandler{BudgetPerStep: plan.CompactionBudget}
		var compaction harness.RequestErrorHandler = &parts.compaction
		if plan.CompactionDelayMs > 0 {
			parts.deliberating = deliberatingHandler{inner: compaction, rt: rt, tracer: t, delayMs: plan.CompactionDelayMs, failures: &w.compactionFailures}
			compaction = &parts.deliberating
		}
		parts.handlers[0] = compaction // the harness copies the list
		handlers = parts.handlers[:]
	}
	var tools []harness.Tool
	if w.user.Tools != nil {
		tools = wrapUserTools(w.user.Tools(w.rt), w.rt, t) // the user's, made anew for each incarnation
	} else {
		if len(w.tools) == 0 { // turnsim's own, made once: the harness copies the list, and no tool has state
			w.tools = appendPlanTools(w.tools, w.rt, t)
		}
		tools = w.tools
	}
	var provider harness.Provider = w.provider
	if w.user.WrapProvider != nil {
		provider = w.user.WrapProvider(provider)
	}
	parts.store = simStore{world: w, log: log}
	parts.runtime = tracingRuntime{Runtime: rt, tracer: t, world: w}
	parts.runtime.preempter, _ = rt.(harness.Preempter)
	parts.random = splitmix.Random{Rand: splitmix.New(deriveSeed(w.schedule.Seed, streamHarness+uint64(incarnation-1)*16))}
	parts.draws = drawRecorder{inner: w.schedule.randomFor(incarnation, &parts.random), tracer: t, world: w}
	w.store = &parts.store
	agent, err := harness.New(harness.Config{
		Provider:             provider,
		Runtime:              &parts.runtime,
		Random:               &parts.draws,
		Store:                w.store,
		RetryPolicy:          policy,
		RetryStrategy:        w.strategy(),
		Handlers:             handlers,
		Tools:                tools,
		MaxParallelToolCalls: poolLimit,
		OnError: func(e harness.AgentError) {
			if incarnation == w.incarnation && !w.down {
				t.agentError(e, w.logLen())
			}
		},
		ResumeFrom: history, // validated by the file store's open: not replayed again
	})
	if err != nil {
		return err
	}
	session := agent.Session()
	observed := t.observeFrom(int64(session.Len()))
	session.Observe(func(e harness.Event) {
		t.shown(observed, e.Seq)
		if w.keepDurable {
			// The session's own log up to e, not a copy: its events are shown in log order, so the
			// acknowledged ones are a prefix of it, and one that never changes (Session.Log).
			w.acknowledged = session.Log()[:e.Seq]
		}
		if len(w.armedObservers) > 0 { // most runs arm none: no call for every event
			w.callBack(e)
		}
	})
	w.agent = agent
	if w.keepDurable {
		w.acknowledged = session.Log() // the history and crash repair's events
	}
	w.life, w.endLife = context.WithCancelCause(context.Background())
	w.down = false
	return nil
}

// strategy makes the incarnation's retry strategy: the user's, the zoo's the plan names, or nil
// for the plan's policy.
func (w *world) strategy() harness.RetryStrategy {
	if w.user.NewStrategy != nil {
		return w.user.NewStrategy()
	}
	if name := w.schedule.Plan.RetryStrategy; name != "" {
		return zooStrategy(name)
	}
	return nil
}

// perform does one action, the action-th of the plan (from 1) or what an observer of it does
// (an observer never crashes the agent), and records it in the trace. a is read only.
func (w *world) perform(action int, a *faults.Action) {
	w.calling++
	defer w.endCall()
	t := w.tracer
	agent := w.agent
	seqAt := int64(agent.Session().Len())
	if w.down {
		seqAt = int64(bytes.Count(w.disk.contents(sessionLogPath), []byte{'\n'})) // the log is what the disk holds
	}
	switch a.Kind {
	case faults.ActFollowup, faults.ActSteer, faults.ActInject:
		t.strike(a.Fault)
		send := properties.Send{Action: action, AtMs: t.nowMs(), SeqAt: seqAt, Kind: a.Kind}
		switch {
		case w.down && w.disposed:
			send.Err = harness.ErrDisposed.Error()
		case w.down:
			send.Err = "the agent is down (crashed, not yet restarted)"
		default:
			if id, err := agent.Send(harness.MessageKind(a.Kind), a.Text); err != nil {
				send.Err = err.Error()
			} else {
				send.MessageID = id
			}
		}
		t.record(func(tr *properties.Trace) {
			if tr.Sends == nil {
				tr.Sends = make([]properties.Send, 0, w.planned.sends)
			}
			tr.Sends = append(tr.Sends, send)
		})
	case faults.ActCancel, faults.ActDispose, faults.ActPluginEnd:
		t.strike(a.Fault)
		status := agent.Status()
		c := properties.Cancel{Action: action, AtMs: t.nowMs(), SeqAt: seqAt, Kind: a.Cause, Reason: a.Reason, KeepInbox: a.KeepInbox, Running: status.Running && !w.down, Turn: status.Turn, Down: w.down}
		switch a.Kind {
		case faults.ActDispose:
			c.Kind, c.KeepInbox = harness.CauseDisposed, true
			w.disposed = true
		case faults.ActCancel:
			w.disposed = w.disposed || a.Cause == harness.CauseDisposed // a cancel with cause disposed disposes
		case faults.ActPluginEnd:
			c.Kind = "plugin-end"
		}
		t.record(func(tr *properties.Trace) {
			if tr.Cancels == nil {
				tr.Cancels = make([]properties.Cancel, 0, w.planned.cancels)
			}
			tr.Cancels = append(tr.Cancels, c)
		})
		if w.down {
			return
		}
		switch a.Kind {
		case faults.ActCancel:
			agent.Cancel(harness.CancelCause{Kind: a.Cause, Reason: a.Reason}, a.KeepInbox)
		case faults.ActDispose:
			agent.Dispose()
		case faults.ActPluginEnd:
			agent.DisposeRetryPlugin()
		}
	case faults.ActWaitIdle:
		if w.down {
			return
		}
		life := w.life
		w.watch("idle watcher", func() {
			startSeq := int64(agent.Session().Len())
			if agent.WhenIdle(life) == nil {
				running, now, seqAt := agent.Status().Running, t.nowMs(), int64(agent.Session().Len())
				t.record(func(tr *properties.Trace) {
					tr.IdleReturns = append(tr.IdleReturns, properties.IdleReturn{AtMs: now, StartSeq: startSeq, SeqAt: seqAt, ToolsRunning: t.toolsRunning, Running: running})
				})
			}
		})
	case faults.ActMaintain:
		if w.down {
			return
		}
		durationMs, fault := a.DurationMs, a.Fault
		w.watch("maintenance", func() {
			m := properties.Maintenance{StartMs: -1, EndMs: -1}
			err := agent.Maintain(func(ctx context.Context) error {
				t.strike(fault) // the agent was idle: the maintenance runs
				m.StartMs, m.StartSeq = t.nowMs(), int64(agent.Session().Len())
				err := w.rt.Sleep(ms(durationMs), ctx)
				m.EndMs, m.EndSeq = t.nowMs(), int64(agent.Session().Len())
				return err
			})
			if m.StartMs < 0 {
				m.Err = err.Error() // the agent was not idle, or disposed: nothing ran
			}
			t.record(func(tr *properties.Trace) { tr.Maintenance = append(tr.Maintenance, m) })
		})
	case faults.ActAtTimer, faults.ActDuringTool, faults.ActAtSite:
		if t.aimer != nil { // nil off the scheduler, where moments cannot be ordered
			t.aimer.arm(action, a)
		}
	case faults.ActObserver:
		if w.scheduler == nil {
			return // on real goroutines the callback would race the user's task for the world's state
		}
		if w.armedObservers == nil {
			w.armedObservers = make([]armedObserver, 0, w.planned.observers)
		}
		w.armedObservers = append(w.armedObservers, armedObserver{action: action, plan: w.plannedAction(action, a)})
	case faults.ActCrash:
		if w.scheduler == nil || w.down || w.disposed {
			return
		}
		if a.InAppend || a.FailSync {
			w.armed = w.plannedAction(action, a)
			return
		}
		w.crash(*a, 0)
	default:
		panic(fmt.Sprintf("sim: invariant: a validated plan has an action of kind %q", a.Kind))
	}
}

// endCall ends one of the world's calls into the agent (perform).
func (w *world) endCall() { w.calling-- }

// plannedAction is a, the action-th action of the plan, as the plan's own element, for the world
// to keep: a pointer kept from a itself would make every caller's action escape to the heap (an
// observer's is a copy, made for every callback). Only an action of the plan's own is kept (an
// observer's callback never arms an observer or a crash).
func (w *world) plannedAction(action int, a *faults.Action) *faults.Action {
	planned := &w.schedule.Plan.Actions[action-1]
	if planned != a {
		panic(fmt.Sprintf("sim: invariant: action %d kept is not the plan's own (a %s from an observer?)", action, a.Kind))
	}
	return planned
}

// compactionBudgetOf is the budget of the first compaction handler among handlers (0: none), so
// that the properties about compaction judge a user's waterfall that has one.
func compactionBudgetOf(handlers []harness.RequestErrorHandler) int {
	for _, h := range handlers {
		if c, ok := h.(*harness.CompactionHandler); ok {
			return c.BudgetPerStep
		}
	}
	return 0
}
