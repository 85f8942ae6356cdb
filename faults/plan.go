package faults

import (
	"fmt"
	"math"
	"slices"

	"github.com/turnsim/turnsim/harness"
)

// Plan is a fully explicit script of one simulated run: the agent's configuration, the
// provider's answers in request order, and what the user and host do when. Times are virtual
// milliseconds from the start. After HorizonMs every fault stops: the provider answers cleanly
// and the user does nothing more, so the run must settle (the liveness phase).
type Plan struct {
	Policy               harness.RetryPolicy `json:"policy"`
	MaxParallelToolCalls int                 `json:"maxParallelToolCalls"`
	// CompactionBudget is the compaction handler's budget per step; 0 means no handler.
	CompactionBudget int `json:"compactionBudget"`
	// CompactionDelayMs is how long the compaction handler deliberates over a failure it may
	// answer before it decides (the slow-compaction fault); 0: at once.
	CompactionDelayMs int64 `json:"compactionDelayMs,omitempty"`
	// CompactionFailures is how many of the deliberating compaction handler's first decisions
	// fail: it returns an error (and a retry, which the error must cancel). It needs a
	// CompactionDelayMs.
	CompactionFailures int      `json:"compactionFailures,omitempty"`
	HorizonMs          int64    `json:"horizonMs"`
	Answers            []Answer `json:"answers"`
	Actions            []Action `json:"actions"`
	// Refusals are windows of virtual time during which the session store refuses every append.
	Refusals []Window `json:"refusals,omitempty"`
	// HarnessDefaults builds the agent with the harness's own defaults (no retry policy, no pool
	// limit) while Policy and MaxParallelToolCalls record the spec's defaults (SpecRetryPolicy,
	// SpecMaxParallelToolCalls), which the properties judge by: a drift in the harness's defaults
	// is then a violation.
	HarnessDefaults bool `json:"harnessDefaults,omitempty"`
	// RetryStrategy names a strategy of harness/zoo the agent retries with, at its published
	// parameters, in place of Policy ("": Policy); the properties judge it by what it states.
	RetryStrategy string `json:"retryStrategy,omitempty"`
	// PreemptRate is the chance that a task reaching one of the harness's preemption points gives
	// way to another runnable task (the preemption fault); 0: only the scheduler's own draw.
	PreemptRate float64 `json:"preemptRate,omitempty"`
}

// Answer is the provider's reply to one request: Chunks text chunks ChunkDelayMs apart, then
// either the failure Fail or the tool calls Calls and the finish Finish.
type Answer struct {
	// Fault names the catalogue fault that shaped this answer; empty for a clean answer.
	Fault        string         `json:"fault,omitempty"`
	Chunks       int            `json:"chunks"`
	ChunkDelayMs int64          `json:"chunkDelayMs"`
	Calls        []Call         `json:"calls,omitempty"`
	Finish       harness.Finish `json:"finish,omitempty"`
	Fail         *Fail          `json:"fail,omitempty"`
	// IgnoreCancel makes the stream ignore its context: every chunk (text, tool call, finish),
	// and the stream's end after them, takes ChunkDelayMs whether or not the step was
	// cancelled, and still arrives.
	IgnoreCancel bool `json:"ignoreCancel,omitempty"`
	// Goexit ends the goroutine calling the provider by runtime.Goexit (the provider-goexit
	// fault) after Chunks text chunks ChunkDelayMs apart: in Stream itself when Chunks is 0, in
	// the stream's Next otherwise. Calls, Finish and Fail are then unused.
	Goexit bool `json:"goexit,omitempty"`
	// NilStream makes the provider's Stream return neither a stream nor an error after
	// ChunkDelayMs (the provider-nil-stream fault), as a buggy adapter or fake does: the harness
	// must fail the request (UNKNOWN). Chunks, Calls, Finish and Fail are then unused.
	NilStream bool `json:"nilStream,omitempty"`
	// CallIDsPerAnswer numbers the answer's tool call ids from 1 (call-1, call-2, …) instead of
	// run-unique ids (the call-id-reuse fault): another answer's calls may carry the same ids.
	CallIDsPerAnswer bool `json:"callIdsPerAnswer,omitempty"`
	// Texts are the text chunks as a provider delivered them, in order (a schedule derived from
	// a production log carries them, so that its replay streams what the incident's model said):
	// chunk i is Texts[i] when there is one, "part i+1 " otherwise. At most Chunks of them.
	Texts []string `json:"texts,omitempty"`
	// DelaysMs are the waits before the answer's deliveries as a provider made them (a schedule
	// derived from a production log carries them, so that its replay's chunks come when the
	// incident's did): the i-th is the wait before the stream's i-th delivery (its text chunks,
	// then its failure, or its calls, its finish and the stream's end after it), in place of
	// ChunkDelayMs for a text chunk, a failure or an empty answer's finish, and where a call, a
	// finish or the end would come at once.
	// Past its end, the answer waits as it would without it.
	DelaysMs []int64 `json:"delaysMs,omitempty"`
	// Wire, when set, sends the answer as bytes to a real adapter (see Wire); nil: the
	// simulator's provider model serves it.
	Wire *Wire `json:"wire,omitempty"`
}

// Fail is how an answer fails, after its chunks.
type Fail struct {
	Code         string  `json:"code"`
	Message      string  `json:"message"`
	Status       int     `json:"status,omitempty"`
	RetryAfterMs float64 `json:"retryAfterMs,omitempty"`
	// Plain makes the provider return a plain Go error (not a Failure): UNKNOWN to the harness.
	Plain bool `json:"plain,omitempty"`
	// CauseChain wraps a cause chain inside the failure (connection refused inside a wrapper).
	CauseChain bool `json:"causeChain,omitempty"`
	// Wrap wraps the provider's error in other errors, innermost first: each layer WrapErrorf
	// (fmt.Errorf with %w) or WrapJoin (errors.Join with an unrelated error). The harness must
	// find the Failure through them.
	Wrap []string `json:"wrap,omitempty"`
	// RequestID is the provider's id of the failed request, as a real provider reports it with
	// an error status (a schedule derived from a production log carries it); empty: none.
	RequestID string `json:"requestId,omitempty"`
}

// Layers of Fail.Wrap.
const (
	WrapErrorf = "errorf"
	WrapJoin   = "join"
)

// WrapLayersMax bounds Fail.Wrap.
const WrapLayersMax = 4

// Call is one tool call an answer asks for, with how the simulated tool will behave.
type Call struct {
	Name         string `json:"name"`
	LatencyMs    int64  `json:"latencyMs"`
	Outcome      string `json:"outcome"` // ok, error, panic, goexit or failure
	IgnoreCancel bool   `json:"ignoreCancel,omitempty"`
	// Faults names the catalogue faults that shaped this call.
	Faults []string `json:"faults,omitempty"`
	// ID and Arguments are the call's id and arguments text as a provider delivered them (a
	// schedule derived from a production log carries them when the world would not make the
	// same): empty, the world numbers the call and encodes its arguments itself.
	ID        string `json:"id,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	// Wrap wraps the *harness.ToolFailure of a call with the failure outcome in other errors,
	// innermost first, each layer WrapErrorf or WrapJoin (as Fail.Wrap): none, it is returned
	// bare.
	Wrap []string `json:"wrap,omitempty"`
}

// Tool call outcomes.
const (
	OutcomeOK    = "ok"
	OutcomeError = "error"
	OutcomePanic = "panic"
	// OutcomeGoexit ends the tool's goroutine by runtime.Goexit (the tool-goexit fault).
	OutcomeGoexit = "goexit"
	// OutcomeFailure returns the tool's own *harness.ToolFailure, wrapped as Call.Wrap says
	// (the tool-failure fault).
	OutcomeFailure = "failure"
)

// Action is one thing the user or host does at AtMs.
type Action struct {
	AtMs int64  `json:"atMs"`
	Kind string `json:"kind"`
	// Text is the message of a send.
	Text string `json:"text,omitempty"`
	// Crash: InAppend makes the crash strike inside the first append an agent task makes at or
	// after AtMs (else at AtMs, wherever the agent's tasks are parked); Written says how much of
	// that append's line reaches the disk; RestartAfterMs is when the host restarts the agent.
	InAppend       bool   `json:"inAppend,omitempty"`
	Written        string `json:"written,omitempty"`
	RestartAfterMs int64  `json:"restartAfterMs,omitempty"`
	// Unsynced is, for a crash that is a power loss, what the disk keeps of the bytes written but
	// not yet synced: none (UnsyncedDropped) or a torn first half (UnsyncedTorn). Empty for a
	// crash of the process alone, which loses nothing written: the operating system has it.
	Unsynced string `json:"unsynced,omitempty"`
	// Cause and Reason are a cancel's cause; KeepInbox keeps the inbox through it.
	Cause     string `json:"cause,omitempty"`
	Reason    string `json:"reason,omitempty"`
	KeepInbox bool   `json:"keepInbox,omitempty"`
	// Fault names the catalogue fault behind the action; empty for the scripted user's own.
	Fault string `json:"fault,omitempty"`
	// Concurrent runs the action in a task of its own, so that actions of the same instant
	// interleave as the scheduler picks (the send-cancel-race fault).
	Concurrent bool `json:"concurrent,omitempty"`
	// Observer: from AtMs on, the first event of type On that the agent appends makes a session
	// observer do Then (followup, steer, cancel with Cause/Reason/KeepInbox, or panic) from inside
	// its callback. The aimed actions (aim.go) do Then too, at their moment.
	On   string `json:"on,omitempty"`
	Then string `json:"then,omitempty"`
	// Timer (at-timer): which timer's firing instant the action lands in, the first of its kind
	// to start at or after AtMs: TimerBackoff, TimerTool or TimerChunk.
	Timer string `json:"timer,omitempty"`
	// Tool and AfterMs (during-tool): the action lands AfterMs into the first call of Tool (any
	// tool when empty) to start at or after AtMs, if the call still runs then.
	Tool    string `json:"tool,omitempty"`
	AfterMs int64  `json:"afterMs,omitempty"`
	// Site (at-site): the action lands at the first of the harness's preemption points named Site
	// that the agent reaches at or after AtMs, once the store refused an append of type
	// AfterRefused there, if set.
	Site         string `json:"site,omitempty"`
	AfterRefused string `json:"afterRefused,omitempty"`
	// FailSync (crash): the disk fails the sync of the first append an agent task makes at or
	// after AtMs, the bytes having reached it, and the crash, a power loss, strikes right after
	// the store has cut its file back.
	FailSync bool `json:"failSync,omitempty"`
	// DurationMs (maintain): how long the maintenance work takes.
	DurationMs int64 `json:"durationMs,omitempty"`
}

// Action kinds.
const (
	ActFollowup  = "followup"
	ActSteer     = "steer"
	ActInject    = "inject"
	ActCancel    = "cancel"
	ActDispose   = "dispose"
	ActPluginEnd = "plugin-end"
	// ActWaitIdle starts a watcher that calls WhenIdle and records when it returns.
	ActWaitIdle = "wait-idle"
	// ActMaintain has the host run maintenance (Agent.Maintain) for DurationMs, in a task of
	// its own, if the agent is idle then.
	ActMaintain = "maintain"
	// ActCrash kills the agent's process; the host restarts it from the durable log.
	ActCrash = "crash"
	// ActObserver arms a session observer that calls back into the agent (see Action.On).
	ActObserver = "observer"
	// ThenPanic is the observer's Then that panics instead of calling the agent.
	ThenPanic = "panic"
)

// ObservedTypes are the event types an observer callback may fire on: each is appended from a
// different place in the turn loop (under the agent's lock or not, in the driver or a tool task).
var ObservedTypes = []string{"turn/start", "step/start", "inbox/claim", "assistant/chunk", "assistant/message", "tool/call", "tool/result", "llm/retry", "step/end", "turn/end", "inbox/push"}

// How much of the line being appended reaches the disk when a crash strikes inside an append.
const (
	WrittenNone  = "none"
	WrittenWhole = "whole"
	WrittenTorn  = "torn"
)

// What a power loss leaves of the bytes written but not yet synced.
const (
	UnsyncedDropped = "dropped"
	UnsyncedTorn    = "torn"
)

// Window is a span of virtual time [FromMs, UntilMs) in which the store refuses appends: every
// append, or only those of event type Type; at most Count of them (0: no limit).
type Window struct {
	FromMs  int64  `json:"fromMs"`
	UntilMs int64  `json:"untilMs"`
	Type    string `json:"type,omitempty"`
	Count   int    `json:"count,omitempty"`
	// Fault names the catalogue fault behind the window: append-refused (empty), store-outage,
	// or call-id-reuse (one tool/call or tool/result refused, so calls are left unanswered).
	Fault string `json:"fault,omitempty"`
}

// RefusableTypes are the event types a targeted refusal window may pick: each reaches a
// different way for the harness to fail (the tool executor's scheduler failure, a retry record
// that cannot be written, a turn that cannot be settled, …).
var RefusableTypes = []string{"tool/result", "tool/call", "turn/end", "step/end", "llm/retry", "llm/retry-started", "inbox/claim", "assistant/message", "turn/start", "step/start", "assistant/chunk", "user/message", "inbox/push", "inbox/clear"}

// OutageTypes are the event types a store-outage may refuse for a long while: the ones that open
// or carry work (a refused turn/start or step/start must not spin the driver; a refused claim
// must leave its message queued). The closing ones (step/end, turn/end) are left to short
// append-refused windows: refusing them breaks the session for good.
var OutageTypes = []string{"turn/start", "step/start", "inbox/claim", "assistant/chunk", "assistant/message", "tool/call", "llm/retry", "llm/retry-started", "user/message", "inbox/push"}

// Registered tools of every simulated agent: two parallel, one exclusive. ToolUnknown calls a
// name outside this list.
var (
	ParallelTools  = []string{"read", "search"}
	ExclusiveTools = []string{"write"}
	UnknownTool    = "frobnicate"
)

// Bounds on a plan, so a hand-edited schedule file cannot overflow virtual time or run forever.
const (
	HorizonMsMax  = 24 * 60 * 60 * 1000 // a day of virtual time
	DurationMsMax = 60 * 60 * 1000      // an hour: a chunk delay, a tool latency, a restart delay
	EntriesMax    = 10_000              // answers, actions or refusal windows in a plan
	ChunksMax     = 1_000               // text chunks in one answer
	CallsMax      = 100                 // tool calls in one answer
	RetryAfterMax = float64(1<<31 - 1)  // a provider hint's magnitude: harness.TimerCeilingMs
	// DeliveriesMax bounds the text chunks and tool calls of all a plan's answers together: each
	// is logged, and the answers alone may each hold the most, which no run could hold in memory.
	DeliveriesMax = 100_000
)

// Validate refuses a plan the simulator cannot play faithfully, naming the field.
func (p Plan) Validate() error {
	if err := p.Policy.Validate(); err != nil {
		return fmt.Errorf("faults: plan: policy: %w", err)
	}
	if err := p.validateRetryStrategy(); err != nil {
		return err
	}
	if p.HarnessDefaults && (!samePolicy(p.Policy, SpecRetryPolicy()) || p.MaxParallelToolCalls != SpecMaxParallelToolCalls) {
		return fmt.Errorf("faults: plan: harnessDefaults: policy and maxParallelToolCalls must record the spec's defaults (%+v, %d)", SpecRetryPolicy(), SpecMaxParallelToolCalls)
	}
	switch {
	case p.MaxParallelToolCalls < 0:
		return fmt.Errorf("faults: plan: maxParallelToolCalls %d is negative", p.MaxParallelToolCalls)
	case p.CompactionBudget < 0:
		return fmt.Errorf("faults: plan: compactionBudget %d is negative", p.CompactionBudget)
	case p.CompactionDelayMs < 0 || p.CompactionDelayMs > DurationMsMax:
		return fmt.Errorf("faults: plan: compactionDelayMs %d is outside [0, %d]", p.CompactionDelayMs, DurationMsMax)
	case p.CompactionFailures < 0 || p.CompactionFailures > EntriesMax:
		return fmt.Errorf("faults: plan: compactionFailures %d is outside [0, %d]", p.CompactionFailures, EntriesMax)
	case p.CompactionFailures > 0 && p.CompactionDelayMs == 0:
		return fmt.Errorf("faults: plan: compactionFailures %d needs a compactionDelayMs: only the deliberating handler fails", p.CompactionFailures)
	case !(p.PreemptRate >= 0 && p.PreemptRate <= 1):
		return fmt.Errorf("faults: plan: preemptRate %g is outside [0, 1]", p.PreemptRate)
	case p.HorizonMs < 0 || p.HorizonMs > HorizonMsMax:
		return fmt.Errorf("faults: plan: horizonMs %d is outside [0, %d]", p.HorizonMs, HorizonMsMax)
	case len(p.Answers) > EntriesMax || len(p.Actions) > EntriesMax || len(p.Refusals) > EntriesMax:
		return fmt.Errorf("faults: plan: more than %d answers, actions or refusals", EntriesMax)
	}
	deliveries := 0
	for i, a := range p.Answers {
		if err := a.validate(); err != nil {
			return fmt.Errorf("faults: plan: answers[%d]: %w", i, err)
		}
		if deliveries += a.Chunks + len(a.Calls); deliveries > DeliveriesMax {
			return fmt.Errorf("faults: plan: answers[0] to answers[%d] deliver more than %d text chunks and tool calls in all", i, DeliveriesMax)
		}
	}
	for i, a := range p.Actions {
		if a.AtMs > p.HorizonMs {
			return fmt.Errorf("faults: plan: actions[%d]: atMs %d is after the horizon %d (faults stop there)", i, a.AtMs, p.HorizonMs)
		}
		if err := a.validate(); err != nil {
			return fmt.Errorf("faults: plan: actions[%d]: %w", i, err)
		}
	}
	for i, w := range p.Refusals {
		if w.FromMs < 0 || w.UntilMs < w.FromMs || w.UntilMs > HorizonMsMax {
			return fmt.Errorf("faults: plan: refusals[%d]: window [%d, %d) is not a forward span of time", i, w.FromMs, w.UntilMs)
		}
		if w.Type != "" && !slices.Contains(RefusableTypes, w.Type) {
			return fmt.Errorf("faults: plan: refusals[%d]: type %q is not one of %v", i, w.Type, RefusableTypes)
		}
		if w.Count < 0 {
			return fmt.Errorf("faults: plan: refusals[%d]: count %d is negative", i, w.Count)
		}
		if w.Fault != "" && w.Fault != AppendRefused && w.Fault != StoreOutage && w.Fault != CallIDReuse && w.Fault != WakeDuringFailedTurn {
			return fmt.Errorf("faults: plan: refusals[%d]: fault %q is not %s, %s, %s or %s", i, w.Fault, AppendRefused, StoreOutage, CallIDReuse, WakeDuringFailedTurn)
		}
	}
	return nil
}

func (a Answer) validate() error {
	if a.Fault != "" {
		if _, ok := Lookup(a.Fault); !ok {
			return fmt.Errorf("unknown fault %q", a.Fault)
		}
	}
	switch {
	case a.Chunks < 0 || a.Chunks > ChunksMax:
		return fmt.Errorf("chunks %d is outside [0, %d]", a.Chunks, ChunksMax)
	case a.ChunkDelayMs < 0 || a.ChunkDelayMs > DurationMsMax:
		return fmt.Errorf("chunkDelayMs %d is outside [0, %d]", a.ChunkDelayMs, DurationMsMax)
	case len(a.Calls) > CallsMax:
		return fmt.Errorf("%d calls is more than %d", len(a.Calls), CallsMax)
	case len(a.Texts) > a.Chunks:
		return fmt.Errorf("%d texts for %d chunks", len(a.Texts), a.Chunks)
	case len(a.DelaysMs) > a.Chunks+len(a.Calls)+2:
		return fmt.Errorf("%d delays for %d deliveries (chunks, calls, the finish and the stream's end)", len(a.DelaysMs), a.Chunks+len(a.Calls)+2)
	}
	for i, d := range a.DelaysMs {
		if d < 0 || d > DurationMsMax {
			return fmt.Errorf("delaysMs[%d] %d is outside [0, %d]", i, d, DurationMsMax)
		}
	}
	if err := a.validateWire(); err != nil {
		return err
	}
	if a.NilStream {
		if a.Chunks > 0 || a.Fail != nil || len(a.Calls) > 0 || a.IgnoreCancel || a.Goexit {
			return fmt.Errorf("nilStream returns no stream: no chunks, fail, calls, ignoreCancel or goexit")
		}
		return nil
	}
	if a.Goexit {
		if a.Fail != nil || len(a.Calls) > 0 || a.IgnoreCancel {
			return fmt.Errorf("goexit ends the stream after its text chunks: no fail, calls or ignoreCancel")
		}
		return nil
	}
	if a.Fail != nil {
		if a.Fail.Code == "" && !a.Fail.Plain {
			return fmt.Errorf("fail.code is empty")
		}
		if err := validCode(a.Fail); err != nil {
			return err
		}
		if math.IsNaN(a.Fail.RetryAfterMs) || math.Abs(a.Fail.RetryAfterMs) > RetryAfterMax {
			return fmt.Errorf("fail.retryAfterMs %g is not finite and within ±%g", a.Fail.RetryAfterMs, RetryAfterMax)
		}
		if len(a.Fail.Wrap) > WrapLayersMax {
			return fmt.Errorf("fail.wrap has %d layers, more than %d", len(a.Fail.Wrap), WrapLayersMax)
		}
		for j, layer := range a.Fail.Wrap {
			if layer != WrapErrorf && layer != WrapJoin {
				return fmt.Errorf("fail.wrap[%d] %q is not %s or %s", j, layer, WrapErrorf, WrapJoin)
			}
		}
		return nil
	}
	switch a.Finish {
	case harness.FinishCompleted, harness.FinishMaxTokens, harness.FinishToolCalls:
	default:
		return fmt.Errorf("finish %q is not completed, max-tokens or tool-calls", string(a.Finish))
	}
	for j, c := range a.Calls {
		if c.Name == "" {
			return fmt.Errorf("calls[%d]: name is empty", j)
		}
		if c.LatencyMs < 0 || c.LatencyMs > DurationMsMax {
			return fmt.Errorf("calls[%d]: latencyMs %d is outside [0, %d]", j, c.LatencyMs, DurationMsMax)
		}
		switch c.Outcome {
		case OutcomeOK, OutcomeError, OutcomePanic, OutcomeGoexit, OutcomeFailure:
		default:
			return fmt.Errorf("calls[%d]: outcome %q is not ok, error, panic, goexit or failure", j, c.Outcome)
		}
		if err := c.validateWrap(); err != nil {
			return fmt.Errorf("calls[%d]: %w", j, err)
		}
	}
	return nil
}

func (a Action) validate() error {
	if a.AtMs < 0 {
		return fmt.Errorf("atMs %d is negative", a.AtMs)
	}
	switch a.Kind {
	case ActFollowup, ActSteer, ActInject, ActDispose, ActPluginEnd, ActWaitIdle:
	case ActMaintain:
		if a.DurationMs < 0 || a.DurationMs > DurationMsMax {
			return fmt.Errorf("maintain durationMs %d is outside [0, %d]", a.DurationMs, DurationMsMax)
		}
	case ActCrash:
		switch {
		case a.InAppend && a.Written != WrittenNone && a.Written != WrittenWhole && a.Written != WrittenTorn:
			return fmt.Errorf("crash written %q is not none, whole or torn", a.Written)
		case !a.InAppend && a.Written != "":
			return fmt.Errorf("a crash outside an append writes nothing; written must be empty")
		case a.Unsynced != "" && a.Unsynced != UnsyncedDropped && a.Unsynced != UnsyncedTorn:
			return fmt.Errorf("crash unsynced %q is not empty, dropped or torn", a.Unsynced)
		case a.RestartAfterMs < 0 || a.RestartAfterMs > DurationMsMax:
			return fmt.Errorf("restartAfterMs %d is outside [0, %d]", a.RestartAfterMs, DurationMsMax)
		case a.FailSync && (a.InAppend || a.Unsynced == ""):
			return fmt.Errorf("a crash with failSync is a power loss after the append: inAppend must be false and unsynced set")
		}
	case ActAtTimer, ActDuringTool, ActAtSite:
		if err := a.validateAimed(); err != nil {
			return err
		}
	case ActCancel:
		if err := validCause(a.Cause); err != nil {
			return err
		}
	case ActObserver:
		if !slices.Contains(ObservedTypes, a.On) {
			return fmt.Errorf("observer on %q is not one of %v", a.On, ObservedTypes)
		}
		if err := a.validateThen(ActFollowup, ActSteer, ActCancel, ThenPanic); err != nil {
			return err
		}
	default:
		return fmt.Errorf("kind %q is unknown", a.Kind)
	}
	if a.Fault != "" {
		if _, ok := Lookup(a.Fault); !ok {
			return fmt.Errorf("unknown fault %q", a.Fault)
		}
	}
	return nil
}

// validCause refuses a cancel cause the plan cannot play.
func validCause(cause string) error {
	switch cause {
	case harness.CauseUser, harness.CauseParent, harness.CauseHook, harness.CauseDisposed:
		return nil
	}
	return fmt.Errorf("cancel cause %q is not user, parent, hook or disposed", cause)
}
