package harness

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
)

// ErrDisposed is returned by every send to an agent that was disposed.
var ErrDisposed = errors.New("harness: agent is disposed: it accepts no more messages")

// ErrNotIdle is returned by Maintain when a turn is running or other maintenance is under way.
var ErrNotIdle = errors.New("harness: agent is not idle")

// DefaultMaxParallelToolCalls is the pool limit for parallel tool calls when none is configured.
const DefaultMaxParallelToolCalls = 10

// Config is everything an agent is built from. Provider is required; the rest has defaults that
// suit production: real goroutines and clock, a randomly seeded source, the seed's retry policy.
type Config struct {
	Provider Provider
	// Runtime runs the agent's tasks and timers; nil means NewProductionRuntime(nil).
	Runtime Runtime
	// Random feeds jitter and retry UUIDs; nil means a source seeded from the operating system.
	Random Random
	// Store receives every event; nil keeps the log in memory only.
	Store Store
	// RetryPolicy configures llm-retry; nil means DefaultRetryPolicy().
	RetryPolicy *RetryPolicy
	// RetryStrategy, if set, replaces RetryPolicy: llm-retry asks it how to retry (see
	// RetryStrategy; package harness/zoo has published ones).
	RetryStrategy RetryStrategy
	// Handlers follow llm-retry in the request-error waterfall, in order.
	Handlers []RequestErrorHandler
	Tools    []Tool
	// MaxParallelToolCalls bounds the rolling pool of parallel calls; 0 means 10.
	MaxParallelToolCalls int
	// OnError, if set, is called for every agent/error (see AgentError).
	OnError func(AgentError)
	// History is a log written earlier to Store (by a process that may have crashed): the agent
	// resumes from it. Its open turn, if any, is closed by crash repair (RepairEvents), written to
	// Store before New returns; the inbox, turn count and conversation are rebuilt from it. The
	// next turn starts fresh retry chains. Call Wake to run work the inbox still holds.
	History []Event
	// ResumeFrom is History read back and validated by a store (filestore.Opened.History): the
	// agent resumes from its events as from History, and takes over the invariant state the
	// store's validation left instead of replaying them through the layer again. Set History or
	// ResumeFrom, not both.
	ResumeFrom *ValidatedHistory
}

// AgentError is the agent/error observer event: a turn that failed for a reason other than a
// cancellation, a request-error handler that failed, a turn/end that could not be written, or
// an observer or watcher that panicked. It goes to watchers, not to the session log.
type AgentError struct {
	Turn int
	// Step is the step in which the failure happened: 0 only outside steps.
	Step   int
	Source string
	Err    error
}

// Agent runs turns. Its public methods are safe for concurrent use; the turn loop itself runs on
// a task of the injected Runtime.
type Agent struct {
	runtime Runtime
	// preempter is the runtime, when it is a Preempter (see preemptionPoint); nil otherwise.
	preempter Preempter
	// locked is the injected Random, serialised: the retry plugin draws jitter and retry ids from
	// it, on the turn loop's task and on the tasks of tools that fail alike.
	locked       lockedRandom
	session      *Session
	provider     Provider
	tools        toolSet
	poolLimit    int
	waterfall    waterfall
	conversation Conversation // touched only by the turn loop's task

	mu          sync.Mutex
	phase       phaseKind
	turn, step  int
	lastTurn    int
	phaseCtx    context.Context
	phaseCancel context.CancelCauseFunc
	// claimedInTurn counts the messages the running turn took from the inbox: a turn that failed
	// having taken none must not be rerun on the same messages (see drive).
	claimedInTurn int
	wakeRequested bool
	disposed      bool
	// wokenInTurn is set by a waking send after the turn's turn/start: work for the driver to go
	// on with.
	wokenInTurn   bool
	inbox         inbox
	messageCount  int
	toolsInFlight int
	idleWaiters   []Queue
	watchers      []func(AgentError)
	// claims, stepCalls and toolSlots belong to the turn loop's task: a step's share of the
	// inbox (claimInbox), the tool calls of its answer (runStep), and where a group of calls
	// leaves its results (runGroup). Each step uses them afresh once the step before is over.
	claims    []inboxEntry
	stepCalls []Block
	toolSlots []toolSlot

	// retryPlugin is the agent's llm-retry plugin, the first handler of its waterfall.
	retryPlugin llmRetry
}

// New builds an agent, refusing a bad configuration with an error that names what is wrong.
func New(cfg Config) (*Agent, error) {
	if cfg.Provider == nil {
		return nil, errors.New("harness: config: Provider is required")
	}
	if cfg.Provider.Name() == "" {
		return nil, errors.New("harness: config: Provider.Name() is empty; retry chains are keyed by it")
	}
	var policy RetryPolicy // the given one; without one, the default's strategy is shared
	if cfg.RetryPolicy != nil {
		policy = *cfg.RetryPolicy
		// The caller's slice is theirs: a later edit must not change what this agent retries
		// while its policyKey still names the old codes.
		policy.RetryableCodes = slices.Clone(policy.RetryableCodes)
		if err := policy.Validate(); err != nil {
			return nil, err
		}
	}
	if cfg.MaxParallelToolCalls < 0 {
		return nil, fmt.Errorf("harness: config: MaxParallelToolCalls %d is negative", cfg.MaxParallelToolCalls)
	}
	runtime := cfg.Runtime
	if runtime == nil {
		runtime = NewProductionRuntime(nil)
	}
	random := cfg.Random
	if random == nil {
		random = newSystemRandom()
	}
	a := &Agent{
		runtime:   runtime,
		provider:  cfg.Provider,
		poolLimit: cfg.MaxParallelToolCalls,
	}
	a.preempter, _ = runtime.(Preempter)
	a.locked.r = random
	if a.poolLimit == 0 {
		a.poolLimit = DefaultMaxParallelToolCalls
	}
	tools, err := newToolSet(cfg.Tools)
	if err != nil {
		return nil, err
	}
	a.tools = tools
	// A history is resumed from validated: ResumeFrom's was, by the store that read it; History's
	// is here, once, with the invariant layer.
	validated := cfg.ResumeFrom
	if validated != nil && len(cfg.History) > 0 {
		return nil, errors.New("harness: config: History and ResumeFrom are both set; set one")
	}
	if validated == nil && len(cfg.History) > 0 {
		var err error
		if validated, err = ValidateHistory(cfg.History); err != nil {
			return nil, fmt.Errorf("harness: history: %w", err)
		}
	}
	history := validated.Events()
	capacity := sessionEventsCap
	if len(history) > 0 {
		capacity = 0 // the history brings the log, sized to it
	}
	a.session = newSession(runtime.Clock(), cfg.Store, capacity)
	a.session.onObserverPanic = a
	if len(history) > 0 {
		if err := a.resume(validated); err != nil {
			return nil, err
		}
	}
	strategy := cfg.RetryStrategy
	switch {
	case strategy == nil && cfg.RetryPolicy == nil:
		strategy = defaultStrategy()
	case strategy == nil:
		strategy = policy.Strategy()
	case strategy.Key() == "" || (strategy.Mode() != ModeNormal && strategy.Mode() != ModeAlways) || (strategy.Mode() == ModeNormal && strategy.Budget() < 1):
		return nil, fmt.Errorf("harness: config: RetryStrategy needs a key, mode normal or always, and in normal mode a budget of at least 1 (got key %q, mode %q, budget %d)", strategy.Key(), strategy.Mode(), strategy.Budget())
	}
	a.retryPlugin.init(strategy, a.session, runtime, &a.locked)
	if cfg.OnError != nil {
		a.watchers = []func(AgentError){cfg.OnError}
	}
	// llm-retry, then the configured handlers, copied: the caller's slice is theirs.
	handlers := slices.Concat([]RequestErrorHandler{&a.retryPlugin}, cfg.Handlers)
	a.waterfall = waterfall{handlers: handlers, report: a}
	return a, nil
}

// preemptionPoint marks site as a preemption point (see Preempter): another task may run here,
// before the lock or the read that follows.
func (a *Agent) preemptionPoint(site string) {
	if a.preempter != nil {
		a.preempter.Preempt(site)
	}
}

// Session returns the agent's session log.
func (a *Agent) Session() *Session { return a.session }

// Watch registers fn to receive every agent/error from now on.
func (a *Agent) Watch(fn func(AgentError)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.watchers = append(a.watchers, fn)
}

// emitError shows an agent/error to every watcher, with no lock held, so a watcher may call the
// agent back. A watcher that panics is contained: the other watchers hear of it as an
// agent/error of its own (a panic while reporting a panic is dropped, so this cannot recurse).
func (a *Agent) emitError(e AgentError) {
	a.mu.Lock()
	// Watch only appends, which never changes the entries this slice holds: it stays the list it
	// was when read, whatever a watcher registers meanwhile.
	watchers := a.watchers
	a.mu.Unlock()
	var panicked []AgentError
	for _, w := range watchers {
		if recovered := callWatcher(w, e); recovered != nil && e.Source != sourceWatcherPanic {
			panicked = append(panicked, AgentError{Turn: e.Turn, Step: e.Step, Source: sourceWatcherPanic, Err: fmt.Errorf("harness: an agent/error watcher panicked: %v", recovered)})
		}
	}
	for _, p := range panicked {
		a.emitError(p)
	}
}

// sourceWatcherPanic and sourceObserverPanic are the AgentError sources of a contained panic in
// an agent/error watcher and in a session observer.
const (
	sourceWatcherPanic  = "watcher panic"
	sourceObserverPanic = "observer panic"
)

// callWatcher calls one watcher, returning what it panicked with, if it did.
func callWatcher(w func(AgentError), e AgentError) (recovered any) {
	defer func() { recovered = recover() }()
	w(e)
	return nil
}

// observerPanicked reports a session observer's contained panic as agent/error.
func (a *Agent) observerPanicked(e Event, recovered any) {
	turn, step := EventScope(e)
	a.emitError(AgentError{Turn: turn, Step: step, Source: sourceObserverPanic, Err: fmt.Errorf("harness: a session observer panicked on event %d (%s): %v", e.Seq, e.Type, recovered)})
}

// unlock lets go of the agent's lock, then shows the observers what was appended under it.
func (a *Agent) unlock() {
	a.mu.Unlock()
	a.session.deliver()
}

// Followup queues text for the next turn and wakes the agent.
func (a *Agent) Followup(text string) (string, error) { return a.Send(KindFollowup, text) }

// Steer queues text for the current turn's next step and wakes the agent.
func (a *Agent) Steer(text string) (string, error) { return a.Send(KindSteer, text) }

// Inject queues text for the next step without waking the agent.
func (a *Agent) Inject(text string) (string, error) { return a.Send(KindInject, text) }

// Send queues a message of the given kind and returns its id. It logs user/message and
// inbox/push. A waking send after an abort goes to the next-turn lane: the aborted turn will take
// no further step.
func (a *Agent) Send(kind MessageKind, text string) (string, error) {
	switch kind {
	case KindFollowup, KindSteer, KindInject:
	default:
		return "", fmt.Errorf("harness: send: unknown message kind %q", string(kind))
	}
	a.mu.Lock()
	if a.disposed {
		a.mu.Unlock()
		return "", ErrDisposed
	}
	lane, wakes := kind.lane()
	if wakes && lane == LaneNextStep && a.phase == phaseRunning && a.phaseCtx.Err() != nil {
		lane = LaneNextTurn
	}
	a.messageCount++
	n := a.messageCount
	id := "m" + strconv.Itoa(n)
	if _, err := a.session.appendQuiet(UserMessage{Message: Message{ID: id, Text: text}}); err != nil {
		a.messageCount--
		a.unlock()
		return "", err
	}
	if _, err := a.session.appendQuiet(InboxPush{Lane: lane, Kind: kind, MessageID: id}); err != nil {
		a.unlock()
		return "", err
	}
	a.inbox.push(inboxEntry{id: id, kind: kind, lane: lane, text: text})
	start := wakes && a.wakeLocked()
	a.unlock()
	if start {
		a.runtime.Go("driver", a.drive)
	}
	return id, nil
}

// Cancel cancels the current phase with cause. Unless keepInbox, it first clears the inbox
// (logging inbox/clear for each dropped message) and the wake latch.
// A cause of disposed disposes the agent, as Dispose does (but clearing the inbox unless
// keepInbox).
func (a *Agent) Cancel(cause CancelCause, keepInbox bool) error {
	if !validCauseKind(cause.Kind) {
		return fmt.Errorf("harness: cancel: cause %q is not user, parent, hook or disposed", cause.Kind)
	}
	a.mu.Lock()
	defer a.unlock()
	err := a.cancelLocked(cause, keepInbox)
	if cause.Kind == CauseDisposed {
		a.disposed = true
		a.retryPlugin.dispose()
	}
	return err
}

func (a *Agent) cancelLocked(cause CancelCause, keepInbox bool) error {
	var appendErr error
	if !keepInbox {
		for _, dropped := range a.inbox.all() {
			if _, err := a.session.appendQuiet(InboxClear{Lane: dropped.lane, MessageID: dropped.id}); err != nil {
				if appendErr == nil {
					appendErr = err // the message stays queued: the log never said it was cleared
				}
				continue
			}
			a.inbox.remove(dropped)
		}
		if a.phase != phaseIdle {
			a.wakeRequested = false
		}
	}
	if a.phase != phaseIdle {
		a.phaseCancel(cause)
	}
	return appendErr
}

// Dispose cancels with cause disposed, keeping the inbox, ends the llm-retry plugin's lifetime,
// and refuses every later send. No turn starts after it, whatever the inbox holds.
func (a *Agent) Dispose() error {
	a.mu.Lock()
	defer a.unlock()
	if a.disposed {
		return nil
	}
	a.disposed = true
	err := a.cancelLocked(CancelCause{Kind: CauseDisposed}, true)
	a.retryPlugin.dispose()
	return err
}

// DisposeRetryPlugin ends the llm-retry plugin's lifetime alone: a backoff wait in progress ends
// at once with no retry, and later failures go straight down the waterfall. Hosts use it when
// they unload the plugin; the simulator uses it as a fault.
func (a *Agent) DisposeRetryPlugin() { a.retryPlugin.dispose() }

// Status is the agent's public phase: maintenance reads as idle.
type Status struct {
	Running bool
	Turn    int
	Step    int
}

// Status returns where the agent is.
func (a *Agent) Status() Status {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.phase != phaseRunning {
		return Status{Turn: a.lastTurn}
	}
	return Status{Running: true, Turn: a.turn, Step: a.step}
}

// WhenIdle returns once the agent is idle and every tool call has settled, or with
// context.Cause(ctx) when ctx ends first. A stuck tool keeps it waiting: by design, draining
// never gives up.
func (a *Agent) WhenIdle(ctx context.Context) error {
	a.mu.Lock()
	if a.settledLocked() {
		a.mu.Unlock()
		return nil
	}
	q := a.runtime.NewQueue("whenIdle")
	a.idleWaiters = append(a.idleWaiters, q)
	a.mu.Unlock()
	_, err := q.Get(ctx)
	return err
}

func (a *Agent) settledLocked() bool {
	return a.phase == phaseIdle && a.toolsInFlight == 0
}

// notifyIdleLocked wakes the WhenIdle waiters if the agent has settled.
func (a *Agent) notifyIdleLocked() {
	if !a.settledLocked() {
		return
	}
	for _, q := range a.idleWaiters {
		q.Put(struct{}{})
	}
	a.idleWaiters = nil
}
