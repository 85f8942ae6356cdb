// Package plant holds turnsim's planted bugs: deliberate defects in the harness, each switched on
// by name, that prove a property of package properties can fail. In a normal build On is a
// constant false, so every planted branch compiles away and nothing is reachable; only a build
// with the tag plantedbugs can switch one on (see plant_on.go). The package is internal, so no
// user of turnsim can reach it either way.
package plant

// Bug is one planted defect and the property that must catch it.
type Bug struct {
	Name     string
	Property string
	Doc      string
}

// Names of the planted bugs, used at the planted sites in the harness.
const (
	WaitBeforeRetryRecord   = "wait-before-retry-record"
	RetryStartedEarly       = "retry-started-early"
	MaxTokensNotSticky      = "max-tokens-not-sticky"
	NoSyntheticResult       = "no-synthetic-result"
	DispatchAfterAbort      = "dispatch-after-abort"
	PoolLimitOffByOne       = "pool-limit-off-by-one"
	RetryAfterAboveCap      = "retry-after-above-cap-retried"
	JitterOnRetryAfter      = "jitter-on-retry-after"
	BudgetIgnored           = "budget-ignored"
	WakeAfterDispose        = "wake-after-dispose"
	SkipTurnEndOnError      = "skip-turn-end-on-error"
	ResultsInFinishOrder    = "results-in-finish-order"
	DrainSkipped            = "drain-skipped"
	WrongAbortCause         = "wrong-abort-cause"
	ExponentOffByOne        = "exponent-off-by-one"
	WaitIgnoresCancel       = "wait-ignores-cancel"
	NewRetryIDPerRetry      = "new-retry-id-per-retry"
	AlwaysGivesUp           = "always-gives-up"
	NormalGivesUpEarly      = "normal-gives-up-early"
	TruncatedCallsRun       = "truncated-calls-run"
	WhenIdleWhileDraining   = "when-idle-while-draining"
	EncodeDropsMaxRetries   = "encode-drops-max-retries"
	StuckAfterAbort         = "stuck-after-abort"
	PanicOnEmptyAnswer      = "panic-on-empty-answer"
	SyntheticResultDropped  = "synthetic-result-dropped"
	UnknownToolCalledTwice  = "unknown-tool-called-twice"
	ChunkNotWrittenThrough  = "chunk-not-written-through"
	RepairCompletesTurn     = "repair-completes-turn"
	RedispatchAfterRestart  = "redispatch-after-restart"
	BudgetOffByOne          = "budget-off-by-one"
	LaterStepsClaimNextTurn = "later-steps-claim-next-turn"
	InjectWakes             = "inject-wakes"
	LatchedWakeDropped      = "latched-wake-dropped"
	NoAgentErrorOnUnknown   = "no-agent-error-on-unknown"
	ToolsGetBackground      = "tools-get-background"
	AlwaysSkipsDownstream   = "always-skips-downstream"
	RetryAfterDropped       = "retry-after-dropped"
	RetryCounterInMemory    = "retry-counter-in-memory"
	OverCapRetryAfterUsed   = "over-cap-retry-after-used"
	DisposedPluginRetries   = "disposed-plugin-retries"
	FailedTurnRerun         = "failed-turn-rerun"
	ObserverPanicEscapes    = "observer-panic-escapes"
	ClearLeavesMessage      = "clear-leaves-message"
)

// Names of the planted bugs behind the wrapped-failure and stream-ignores-cancel faults and the
// stream, inbox and conversation properties.
const (
	FailureOfNoUnwrap           = "failure-of-no-unwrap"
	NoCancelCheckAfterChunk     = "no-cancel-check-after-chunk"
	KeepInboxClears             = "keep-inbox-clears"
	ToolResultNotInConversation = "tool-result-not-in-conversation"
	TornCutOneTooMany           = "torn-cut-one-too-many"
	SyncBeforeWrite             = "sync-before-write"
)

// Catalogue lists every planted bug with the property that catches it.
var Catalogue = []Bug{
	{WaitBeforeRetryRecord, "durable-before-wait", "llm-retry waits first and writes llm/retry after the wait"},
	{RetryStartedEarly, "retry-started-on-time", "llm/retry-started is written after half the delay"},
	{MaxTokensNotSticky, "max-tokens-sticky", "a completed step overwrites an earlier max-tokens"},
	{NoSyntheticResult, "unstarted-get-synthetic", "calls the abort kept from starting get no tool/call or result"},
	{DispatchAfterAbort, "no-dispatch-after-cancel", "the tool pool keeps dispatching after the step was cancelled"},
	{PoolLimitOffByOne, "pool-limit", "the parallel pool lets maxParallelToolCalls+1 calls run"},
	{RetryAfterAboveCap, "normal-gives-up", "normal mode retries a Retry-After above maxDelay, capping it"},
	{JitterOnRetryAfter, "retry-after-exact", "jitter is applied to the provider's Retry-After"},
	{BudgetIgnored, "retry-budget", "with the budget spent, normal mode re-sends anyway without a record"},
	{WakeAfterDispose, "no-wake-after-dispose", "dispose does not stop the driver: a latched wake starts another turn"},
	{SkipTurnEndOnError, "turn-settled", "turn/end is skipped when a turn ends in an UNKNOWN error"},
	{ResultsInFinishOrder, "results-in-model-order", "tool results are committed in the order calls finish"},
	{DrainSkipped, "drain-real-results", "on abort, started calls are not waited for; they get the synthetic result"},
	{WrongAbortCause, "abort-cause", "every aborted turn records cause user"},
	{ExponentOffByOne, "delay-in-window", "the backoff exponent is n instead of n-1"},
	{WaitIgnoresCancel, "cancel-ends-wait", "the backoff wait ignores the step's cancellation and checks only afterwards"},
	{NewRetryIDPerRetry, "retry-id-continuity", "every retry draws a new retryId (and the invariant layer is bypassed for it)"},
	{AlwaysGivesUp, "always-persists", "always mode applies a budget of 2 retries"},
	{NormalGivesUpEarly, "normal-gives-up", "normal mode gives up one retry before its budget is spent"},
	{TruncatedCallsRun, "no-truncated-calls", "tool calls of an answer cut off at max-tokens are run"},
	{WhenIdleWhileDraining, "when-idle-settled", "WhenIdle returns as soon as the turn is cancelled, while calls still drain"},
	{EncodeDropsMaxRetries, "log-replays", "the JSON encoding of llm/retry drops maxRetries"},
	{StuckAfterAbort, "liveness", "after an aborted turn the driver never returns to idle"},
	{PanicOnEmptyAnswer, "run-completes", "the block assembler panics on an answer with no content"},
	{SyntheticResultDropped, "tool-results-paired", "an unstarted call gets its tool/call but its synthetic result is dropped"},
	{UnknownToolCalledTwice, "appends-accepted", "a call to an unknown tool writes its tool/call twice"},
	{ChunkNotWrittenThrough, "no-acknowledged-loss", "the session acknowledges assistant/chunk events without writing them to the store"},
	{RepairCompletesTurn, "interrupted-turns", "crash repair closes the open turn as completed instead of interrupted"},
	{RedispatchAfterRestart, "no-double-dispatch", "after a restart, calls whose outcome is unknown are run again"},
	{BudgetOffByOne, "chain-budget", "normal mode allows maxRetries+1 retries, and the invariant layer's budget check is off"},
	{LaterStepsClaimNextTurn, "inbox-replays", "every step, not just a turn's first, claims a next-turn message"},
	{InjectWakes, "wake-justified", "an inject wakes an idle agent"},
	{LatchedWakeDropped, "latched-wake-served", "a wake latched during an abort is never replayed"},
	{NoAgentErrorOnUnknown, "agent-error-emitted", "a turn ending in an UNKNOWN error reports no agent/error"},
	{ToolsGetBackground, "tool-context-cancelled", "tools get a context that is never cancelled"},
	{AlwaysSkipsDownstream, "always-defers-downstream", "always mode retries itself without asking the waterfall below it first"},
	{RetryAfterDropped, "failure-recorded-faithfully", "every provider Retry-After hint is dropped as if it were invalid"},
	{OverCapRetryAfterUsed, "delay-within-cap", "always mode waits a provider Retry-After above maxDelay as is"},
	{RetryCounterInMemory, "appends-accepted", "llm-retry counts a chain's retries in memory, per failure code, instead of reading the log"},
	{DisposedPluginRetries, "no-retry-after-dispose", "a retry a downstream handler returns after the llm-retry plugin was disposed is still made"},
	{FailedTurnRerun, "wake-justified", "a turn that failed before taking any message is rerun at once on the same messages"},
	{ObserverPanicEscapes, "run-completes", "a panicking session observer is not contained: its panic escapes into the appending task"},
	{ClearLeavesMessage, "cleared-never-sent", "a cancel without keepInbox logs inbox/clear but leaves the message queued, to be claimed and sent later"},
	{FailureOfNoUnwrap, "failure-recorded-faithfully", "FailureOf finds a Failure only in the outermost error (a type assertion, not errors.As): a wrapped one is UNKNOWN"},
	{NoCancelCheckAfterChunk, "no-output-after-cancel", "the stream loop skips its cancellation check after each chunk: a chunk that arrives after the cancel is logged"},
	{KeepInboxClears, "inbox-clear-exact", "a cancel with keepInbox clears the inbox all the same"},
	{ToolResultNotInConversation, "conversation-well-formed", "a committed tool result is logged but never added to the conversation"},
	{DefaultCodesDrift, "normal-gives-up", "the harness's default retryable codes lose TIMEOUT"},
	{UnknownToolAsError, "fault-labelled", "a call to an unknown tool is reported as TOOL_ERROR instead of TOOL_NOT_FOUND"},
	{SpinOnUnknownTool, "run-completes", "a call to an unknown tool spawns tasks forever: a livelock that never moves virtual time"},
	{TornCutOneTooMany, "no-acknowledged-loss", "the file store's torn-tail cut on open also cuts the newline ending the last complete line"},
	{SyncBeforeWrite, "no-acknowledged-loss", "the file store syncs before it writes, so the line an append returns for is not yet durable"},
}

// Planted bugs of the oracle-independence work: a drift in the harness's defaults, and faults the
// harness reports under the wrong label.
const (
	DefaultCodesDrift  = "default-codes-drift"
	UnknownToolAsError = "unknown-tool-as-tool-error"
	SpinOnUnknownTool  = "spin-on-unknown-tool"
)
