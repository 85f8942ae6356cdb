package properties

import "github.com/turnsim/turnsim/harness"

// Run is everything a property may look at after one simulated run: the session log (in memory
// and as the JSON Lines bytes the run wrote), the simulator's trace, and the configuration the
// agent ran with.
type Run struct {
	// Traced is set when Trace holds the simulator's record of the run; a log checked on its own
	// (CheckLog) has none.
	Traced bool
	Log    []harness.Event
	JSONL  []byte
	Trace  Trace

	Policy harness.RetryPolicy
	// Strategy describes the user's retry strategy when the run used one instead of Policy:
	// then the properties about the seed's own formula are skipped, and the ones every strategy
	// must keep (delays within its cap, retries within its budget) use these.
	Strategy             *StrategyInfo
	MaxParallelToolCalls int
	// ParallelTools and ExclusiveTools are the registered tools; any other name is unknown.
	ParallelTools  []string
	ExclusiveTools []string
	// CompactionBudget is the compaction handler's budget per step; 0 means none was installed.
	CompactionBudget int
	// StartMs is the clock at the start of the run, in Unix milliseconds (0 on the scheduler):
	// the base of the log's and the trace's times.
	StartMs int64
	// HorizonMs is when faults stop, from the start; LivenessBoundMs is how long after it the
	// agent has to settle.
	HorizonMs       int64
	LivenessBoundMs int64
	// LateMs is how late a real timer may fire: 0 in the simulator, whose virtual timers are
	// exact; a log written on the production runtime is checked with a tolerance, because a real
	// timer fires 1–100 ms late on a busy machine and that lateness is no bug of the harness.
	LateMs int64
}

// Trace is what the simulator saw besides the log: when each request, backoff wait and tool call
// started and ended, what the user and host did, and what the harness reported. Times are on
// the log's clock, in Unix milliseconds.
type Trace struct {
	Requests    []Request
	Waits       []Wait
	Tools       []ToolRun
	Cancels     []Cancel
	Sends       []Send
	IdleReturns []IdleReturn
	AgentErrors []AgentError
	// Refusals are appends the session store refused (the append-refused fault).
	Refusals []Refusal
	// IdleAtMs is when the agent settled after the last user action; -1 if it never did within
	// the liveness bound.
	IdleAtMs int64
	EndMs    int64
	// Findings are the scheduler's reasons for ending the run early (deadlock, panic, hang, …).
	Findings []string
	// Crashes and Restarts are the agent's deaths and rebirths from its durable log.
	Crashes  []Crash
	Restarts []Restart
	// Acknowledged are, for each incarnation that crashed, the events whose append had returned:
	// its session's log when it died. Losing one of them is what a crash must never do.
	Acknowledged [][]harness.Event
	// DurableAtEnd is the session log's synced bytes once the run was over: what a power loss at
	// that moment would leave on the disk. Nil when the run kept no durable log (it crashed
	// nothing) or ended with the agent down.
	DurableAtEnd []byte
	// HandlerRetries are the retries a user's request-error handler granted on its own authority
	// (a fallback to another model): each re-sends a request that no budget of llm-retry's or
	// compaction's covers.
	HandlerRetries []HandlerRetry
	// Draws are the numbers the world's random source served the harness, in the order served
	// (the world's own record, not the harness's): each Float64 (the jitter of a local delay)
	// and each Read (the bytes of a retry id).
	Draws []Draw
	// Wire are the requests the world answered as bytes to a real adapter (wirechecks.go).
	Wire []WireExchange
	// Observed is what the world's own session observer was shown, one entry per incarnation
	// (an agent and its session), in order.
	Observed []Observed
	// ObserverPanics are the panics the world's observer raised on purpose (observer-callback).
	ObserverPanics []ObserverPanic
	// Maintenance are the maintenance phases the host ran (Agent.Maintain), one per try.
	Maintenance []Maintenance
	// HandlerFailures are the decisions of the world's request-error handlers that failed: each
	// returned an error (with a retry, which the error must cancel).
	HandlerFailures []HandlerFailure
}

// Maintenance is a maintenance phase's work: from StartMs, when the log held StartSeq events,
// until EndMs and EndSeq, when it ended (its time ran out, or a cancel ended it), just before the
// phase did. Err is set, and the times -1, when Maintain refused to run (the agent was not idle,
// or disposed).
type Maintenance struct {
	StartMs, StartSeq int64
	EndMs, EndSeq     int64
	Err               string
}

// HandlerFailure is a request-error handler failing over the failed attempt Attempt of a step.
type HandlerFailure struct {
	AtMs                int64
	Turn, Step, Attempt int
	Err                 string
}

// Observed is what a session observer was shown in one incarnation: it was attached when the
// log held FromSeq events, and Shown lists the seqs of the events it was shown, in the order
// shown. Up tells whether the incarnation was still up when the run ended (not crashed).
type Observed struct {
	FromSeq int64
	Shown   []int64
	Up      bool
}

// ObserverPanic is a panic the world's observer raised when shown event Seq: Value is what it
// panicked with.
type ObserverPanic struct {
	AtMs  int64
	Seq   int64
	Value string
}

// Draw is one number the world's random source served: a Float64 (Float), or a Read (Read set)
// of ReadBytes bytes. SeqBefore is the session log's length when it was served, so a property can
// tell which record came after it.
type Draw struct {
	AtMs      int64
	SeqBefore int64
	Float     float64
	Read      bool
	ReadBytes int
}

// HandlerRetry is one retry a user's handler granted, in a turn's step.
type HandlerRetry struct {
	Turn, Step int
}

// Crash is the agent's process dying: at a scheduling point, or inside an append (InAppend)
// with none, all or part (Written) of its line on disk. A PowerLoss also took from the disk the
// bytes written but not synced (DroppedBytes of them). DurableBytes is the size of what the disk
// then holds.
type Crash struct {
	AtMs         int64
	InAppend     bool
	Written      string
	DurableBytes int
	PowerLoss    bool
	DroppedBytes int
	// CutBackSeq is the seq of the append whose failure the store cut back just before the
	// crash (the power-loss-after-cut-back fault), and DurableEvents the whole lines the log held
	// right after it; both 0 for any other crash.
	CutBackSeq    int64
	DurableEvents int
}

// Restart is the agent coming back from its durable log: how many events it held, whether a
// torn last line was cut off, which turn crash repair closed (0: none was open), and the error
// if the log could not be reopened.
type Restart struct {
	AtMs          int64
	DurableEvents int
	Torn          bool
	RepairedTurn  int
	Err           string
}

// Request is one provider request: which turn, step and attempt, when it started, when its
// stream ended (EndMs -1 if it never did), and the fault that shaped the answer ("" if clean).
type Request struct {
	Turn, Step, Attempt int
	StartMs, EndMs      int64
	Fault               string
	// Failed is whether the answer was scripted to fail (or to be empty); FailCode is the code
	// the harness must record for it (UNKNOWN for a plain error or for neither a stream nor an
	// error, EMPTY_RESPONSE for an empty answer) and RetryAfterMs the provider's hint as sent
	// (zero or negative: none usable).
	Failed       bool
	FailCode     string
	RetryAfterMs float64
	// FailStatus is the HTTP status the failure was sent with (0: none).
	FailStatus int
	// FailText is, for a plain error (not a Failure), the line the harness must record as its
	// message: the error and each of its causes once, outermost first ("" for any other answer).
	FailText string
	// Goexit is whether the provider ended the calling goroutine by runtime.Goexit (EndMs is
	// then when it did).
	Goexit bool
	// EndSeq is the session log's length when the answer ended (0: not known): a record the
	// harness made of the failure comes after it in the log, even within one millisecond.
	EndSeq int64
	// Messages is the conversation the request carried, entry by entry: what
	// conversation-well-formed judges.
	Messages []RequestMessage
}

// RequestMessage is one entry of the conversation a request carried, as the properties need it:
// its role (harness.RoleUser, RoleAssistant or RoleTool), the ids of the tool calls an assistant
// entry asks for, in order, the id of the call a tool entry answers, and a user entry's text.
type RequestMessage struct {
	Role      string
	CallIDs   []string
	ResultFor string
	// Text is a user entry's text: what cleared-never-sent looks for.
	Text string
}

// Wait is one wait the harness made through the runtime (llm-retry's backoff). SeqBefore is the
// length of the log when the wait began, so a property can tell whether llm/retry was already
// written.
type Wait struct {
	StartMs, EndMs int64
	DelayMs        float64
	SeqBefore      int64
	// Cancelled is whether the wait ended early.
	Cancelled bool
}

// ToolRun is one execution of a simulated tool. Turn, Step and CallID name the call it runs:
// the step whose answer asked for it, and its id there (ids are unique per step only).
type ToolRun struct {
	Turn, Step     int
	CallID, Name   string
	StartMs, EndMs int64  // EndMs -1 if it never returned
	Content        string // what it returned; for a panic, the panic's text
	Outcome        string // ok, error, failure, panic, goexit, cancelled (it honoured its cancelled context) or killed
	// Failure is, for the failure outcome, the *harness.ToolFailure the tool returned, bare or
	// wrapped in other errors: what the tool chose for its error result (nil for the others).
	Failure  *harness.ToolFailure
	Parallel bool
	// HonoursCancel is whether the tool stops when its context is cancelled.
	HonoursCancel bool
	// StartOrder and EndOrder number the starts and ends of all tool runs in the order they
	// happened (EndOrder -1: never ended), since several may happen in one millisecond.
	StartOrder, EndOrder int64
}

// Cancel is a cancellation the user or host made: Kind is user, parent, hook, disposed or
// plugin-end. Running is whether a turn was running at that instant, and Turn which one.
type Cancel struct {
	// Action is the position of the action in the user's script: what came first, when two
	// happen in the same millisecond and write nothing.
	Action int
	AtMs   int64
	// SeqAt is the log's length when the cancellation happened: events with a larger seq came
	// after it.
	SeqAt     int64
	Kind      string
	Reason    string
	KeepInbox bool
	Running   bool
	Turn      int
	// Down is whether the agent's process was down (crashed, not yet restarted): then the
	// cancellation reached no agent and did nothing.
	Down bool
}

// Send is a message the user sent; Err is the error the agent answered with, if any.
type Send struct {
	Action    int
	AtMs      int64
	SeqAt     int64
	Kind      string
	MessageID string
	Err       string
}

// IdleReturn is a WhenIdle call's return: when, how many tool calls were still running, and
// whether the agent still reported a running turn.
type IdleReturn struct {
	AtMs int64
	// StartSeq and SeqAt are the log's length when WhenIdle was called and when it returned:
	// the agent must have been idle at some instant in between.
	StartSeq, SeqAt int64
	ToolsRunning    int
	Running         bool
}

// AgentError is one agent/error the harness reported to watchers.
type AgentError struct {
	AtMs int64
	Turn int
	// Step is the step the harness named (AgentError.Step): the one the failure happened in, 0
	// outside steps.
	Step   int
	Source string
	Err    string
	// SeqAt is the log's length when it was reported: events with a larger seq came after it.
	SeqAt int64
	// Invariant is set when the error is the invariant layer refusing an event.
	Invariant string
}

// Refusal is an append the session store refused.
type Refusal struct {
	AtMs int64
	Type string
	Turn int
	Step int
	// Event is what the store was handed and refused, seq included (0: not known): its line
	// must never be in the log.
	Event harness.Event
	// SeqRetaken is whether an append the store accepted later took the same seq: the line at
	// that seq is then that append's, even when it reads the same.
	SeqRetaken bool
}

// StrategyInfo is what the properties need to know of a user's retry strategy: what it says of
// itself, which is what they judge it by.
type StrategyInfo struct {
	Key    string
	Mode   harness.Mode
	Budget int
	CapMs  float64
	// RetryAfter is how it states it treats a provider's Retry-After (harness.RetryAfterStater); the
	// zero value stands for a strategy that states nothing, held to the strictest statement.
	RetryAfter harness.RetryAfterUse
	// Window is the range it states its own delay for a retry is drawn from
	// (harness.DelayWindowStater); nil when it states none.
	Window func(retry int, earlierDelaysMs []float64) harness.DelayWindow
}
