package faults

import (
	"fmt"
	"slices"
	"strings"
)

// Groups of faults.
const (
	GroupProvider = "provider"
	GroupTools    = "tools"
	GroupUser     = "user"
	GroupHost     = "host"
	// GroupWire are the faults of the wire: an answer sent as bytes to a real adapter (an
	// Answer with a Wire form). They come last in the catalogue, and only a seed's wire draw
	// (DrawWire) switches them on.
	GroupWire = "wire"
)

// Fault is one named way things go wrong.
type Fault struct {
	Name  string
	Group string
	Doc   string
}

// Fault names. They are contracts: schedule files, coverage reports and -faults use them.
const (
	RateLimit             = "rate-limit"
	RateLimitAfterBelow   = "rate-limit-retry-after-below"
	RateLimitAfterEqual   = "rate-limit-retry-after-equal"
	RateLimitAfterAbove   = "rate-limit-retry-after-above"
	RetryAfterInvalid     = "retry-after-invalid"
	Server                = "server"
	Timeout               = "timeout"
	Transport             = "transport"
	EmptyResponse         = "empty-response"
	ContextWindowExceeded = "context-window-exceeded"
	PlainError            = "plain-error"
	FailMidStream         = "fail-mid-stream"
	MaxTokens             = "max-tokens"
	ToolCalls             = "tool-calls"
	SlowStream            = "slow-stream"
	ToolLatency           = "tool-latency"
	ToolLongLatency       = "tool-long-latency"
	ToolError             = "tool-error"
	ToolPanic             = "tool-panic"
	ToolUnknown           = "tool-unknown"
	ToolIgnoresCancel     = "tool-ignores-cancel"
	Steer                 = "steer"
	Inject                = "inject"
	Followup              = "followup"
	CancelUser            = "cancel-user"
	CancelParent          = "cancel-parent"
	CancelHook            = "cancel-hook"
	Dispose               = "dispose"
	PluginEnd             = "plugin-end"
	AppendRefused         = "append-refused"
	Crash                 = "crash"
	TornWrite             = "torn-write"
	StoreOutage           = "store-outage"
	ObserverCallback      = "observer-callback"
	SendCancelRace        = "send-cancel-race"
	SlowCompaction        = "slow-compaction"
	WrappedFailure        = "wrapped-failure"
	StreamIgnoresCancel   = "stream-ignores-cancel"
	PowerLoss             = "power-loss"
	ToolGoexit            = "tool-goexit"
	ProviderGoexit        = "provider-goexit"
	CallIDReuse           = "call-id-reuse"
	ProviderNilStream     = "provider-nil-stream"
	// Aimed faults (aim.go): each targets a moment of the run rather than a time.
	Preemption                 = "preemption"
	CancelAtTimer              = "cancel-at-timer"
	CancelDuringTool           = "cancel-during-tool"
	DisposeBetweenCheckAndWait = "dispose-between-check-and-wait"
	WakeDuringFailedTurn       = "wake-during-failed-turn"
	PowerLossAfterCutBack      = "power-loss-after-cut-back"
	// The wire's faults (draw_wire.go): last, since the swarm does not draw them.
	WireRetryAfterMs      = "wire-retry-after-ms"
	WireRetryAfterSeconds = "wire-retry-after-seconds"
	WireRetryAfterDate    = "wire-retry-after-date"
	WireRetryAfterJunk    = "wire-retry-after-junk"
	WireStatus            = "wire-status"
	WireContextOverflow   = "wire-context-overflow"
	WireQuota             = "wire-quota"
	WireStreamError       = "wire-stream-error"
	WireMalformedEvent    = "wire-malformed-event"
	WireCut               = "wire-cut"
	WireStall             = "wire-stall"
	WireFinishReason      = "wire-finish-reason"
	WireEmptyArguments    = "wire-empty-arguments"
)

// ToolFailure is a tool returning its own *harness.ToolFailure, as a user's tools do (in its
// own declaration: the names above are one block).
const ToolFailure = "tool-failure"

// Maintenance is the host running maintenance (Agent.Maintain) while the agent is idle.
const Maintenance = "maintenance"

// catalogue is the table of faults as a slice; catalogueTable is the same table as an array, whose
// length is a constant (faultCount) that sizes a drawer's table of rates.
var catalogue = catalogueTable[:]

var catalogueTable = [...]Fault{
	{RateLimit, GroupProvider, "RATE_LIMIT (429) with no Retry-After: the local backoff applies"},
	{RateLimitAfterBelow, GroupProvider, "RATE_LIMIT with a Retry-After below maxDelay, at times with a fraction of a millisecond: used exactly, no jitter"},
	{RateLimitAfterEqual, GroupProvider, "RATE_LIMIT with a Retry-After equal to maxDelay: still used exactly"},
	{RateLimitAfterAbove, GroupProvider, "RATE_LIMIT with a Retry-After above maxDelay: normal mode gives up, always mode backs off locally"},
	{RetryAfterInvalid, GroupProvider, "RATE_LIMIT with a zero or negative Retry-After: ignored, and not recorded"},
	{Server, GroupProvider, "SERVER (5xx): retryable"},
	{Timeout, GroupProvider, "TIMEOUT: retryable"},
	{Transport, GroupProvider, "TRANSPORT wrapping a cause chain (connection refused inside a wrapper)"},
	{EmptyResponse, GroupProvider, "an answer with no content: EMPTY_RESPONSE, retryable"},
	{ContextWindowExceeded, GroupProvider, "CONTEXT_WINDOW_EXCEEDED: not retryable; the compaction handler may shrink and retry"},
	{PlainError, GroupProvider, "a plain Go error, not a Failure: UNKNOWN with its ErrorChain"},
	{FailMidStream, GroupProvider, "a retryable failure after some chunks were streamed: the chunks stay in the log, out of the message"},
	{MaxTokens, GroupProvider, "an answer cut off at max-tokens (possibly with truncated tool calls, never run)"},
	{ToolCalls, GroupProvider, "an answer asking for 1 to 5 tool calls, exclusive and parallel mixed"},
	{SlowStream, GroupProvider, "chunks that take 0.5 to 5 s each"},
	{ToolLatency, GroupTools, "a tool call that takes 10 to 800 ms"},
	{ToolLongLatency, GroupTools, "a tool call that takes 2 to 30 s"},
	{ToolError, GroupTools, "a tool call that returns an error: an error result, the other calls go on"},
	{ToolPanic, GroupTools, "a tool call that panics: a TOOL_PANIC result with the panic text"},
	{ToolUnknown, GroupTools, "a call to a tool nobody registered: TOOL_NOT_FOUND"},
	{ToolIgnoresCancel, GroupTools, "a tool call of 0.5 to 5 s that ignores its cancelled context and runs to the end"},
	{Steer, GroupUser, "a steer message (next step, wakes) at any time"},
	{Inject, GroupUser, "an inject message (next step, no wake) at any time"},
	{Followup, GroupUser, "extra followup messages (next turn, wake) at any time"},
	{CancelUser, GroupUser, "Cancel with cause user at any time, with or without keepInbox"},
	{CancelParent, GroupUser, "Cancel with cause parent at any time, with or without keepInbox"},
	{CancelHook, GroupUser, "Cancel with cause hook (and a reason) at any time, with or without keepInbox"},
	{Dispose, GroupUser, "Dispose at any time, or Cancel with cause disposed (clearing the inbox unless keepInbox): no turn after it"},
	{PluginEnd, GroupHost, "the llm-retry plugin's lifetime ends: its waits stop, failures go down the waterfall"},
	{AppendRefused, GroupHost, "the session store refuses every append for a while (infrastructure failure)"},
	{Crash, GroupHost, "the agent's process dies at any scheduling point or inside an append (before or after its line is written) and restarts from the durable log"},
	{TornWrite, GroupHost, "the process dies inside an append with only part of the line written: the torn line is cut off on reopening"},
	{StoreOutage, GroupHost, "the session store refuses every append of one event type (turn/start, step/start, inbox/claim, …) for a long while, up to the horizon: an outage, not a blip"},
	{ObserverCallback, GroupUser, "a session observer calls back into the agent from inside its callback, on a chosen event: a send, a cancel, or a panic"},
	{SendCancelRace, GroupUser, "a waking send and a cancel without keepInbox in the same virtual instant, from two tasks, in either order"},
	{SlowCompaction, GroupHost, "the compaction handler takes 50 ms to 5 s to decide, as a fallback to another model would: the llm-retry plugin may be disposed meanwhile; half the time its first decisions fail with an error"},
	{WrappedFailure, GroupProvider, "a provider failure wrapped in one or two other errors (fmt.Errorf %w, errors.Join): classified through the wrapping, its code, status and Retry-After recorded as sent"},
	{StreamIgnoresCancel, GroupProvider, "a stream that ignores its cancelled context and keeps sending text, tool-call and finish chunks 0.1 to 2 s apart, and takes as long again to end: the harness must stop at the cancellation"},
	{PowerLoss, GroupHost, "the machine loses power (at any scheduling point or inside an append): the process dies and the disk drops what was written but not synced, all of it or all but a torn first part"},
	{ToolGoexit, GroupTools, "a tool call that ends its goroutine by runtime.Goexit, as t.FailNow in a test's tool does: a TOOL_PANIC result"},
	{ProviderGoexit, GroupProvider, "the provider's Stream ends the calling goroutine by runtime.Goexit, as t.FailNow in a test's fake does: the turn ends error, the agent goes idle and serves the next message"},
	{CallIDReuse, GroupProvider, "the provider numbers tool call ids per answer (call-1, call-2, …), so later steps reuse earlier steps' ids, as many fakes and some providers do: ids are unique per step only. It shapes tool-call answers (and numbers every later one so), and the store refuses one tool/call or tool/result append, leaving calls unanswered, which a reused id must not pass off as answered"},
	{ProviderNilStream, GroupProvider, "the provider's Stream returns neither a stream nor an error, as a buggy adapter or fake does: UNKNOWN, the turn ends error"},
	{ToolFailure, GroupTools, "a tool call that returns its own *harness.ToolFailure (a name, a code, a message), bare or wrapped in one or two other errors (fmt.Errorf %w, errors.Join), as a user's tool does: the error result carries the ToolFailure's name, code and message"},
	{Maintenance, GroupHost, "the host runs maintenance (work outside turns: Agent.Maintain) for 50 ms to 5 s while the agent is idle: a waking send meanwhile is latched, and served the moment it ends"},
	{Preemption, GroupHost, "at the harness's preemption points (before it takes its lock, or reads what a cancel or a dispose changes) the running task gives way to another runnable one, at the swarm's rate"},
	{CancelAtTimer, GroupUser, "a cancel, a dispose or the llm-retry plugin's end lands in the very instant a backoff wait, a tool's latency or a chunk's delay runs out: both are due together, in the order the seed draws"},
	{CancelDuringTool, GroupUser, "a cancel (or a dispose) lands while a call of a chosen tool, or of any, runs: a drawn time into the call"},
	{DisposeBetweenCheckAndWait, GroupHost, "the agent is disposed, the llm-retry plugin ends or the step is cancelled between the plugin's last disposed check and its backoff wait"},
	{WakeDuringFailedTurn, GroupUser, "a waking send arrives while a turn that failed before its first claim (its turn/start, step/start or claim refused by the store) winds down, or just before that turn writes its turn/start"},
	{PowerLossAfterCutBack, GroupHost, "the disk fails an append's sync after the bytes reached it; the file store cuts the file back, and the machine loses power right after, before any later durable point"},
	{WireRetryAfterMs, GroupWire, "over the wire, a failure's Retry-After sent as retry-after-ms (decimal milliseconds), alone or with a Retry-After that must lose to it"},
	{WireRetryAfterSeconds, GroupWire, "over the wire, a failure's Retry-After sent as delay-seconds (whole seconds, rounded up): read in seconds, not milliseconds"},
	{WireRetryAfterDate, GroupWire, "over the wire, a failure's Retry-After sent as an HTTP-date (IMF-fixdate, RFC 850 or asctime), measured against the clock"},
	{WireRetryAfterJunk, GroupWire, "over the wire, a Retry-After no reader may take (fractional seconds, an RFC 3339 date, a past date, a word, a number past float range): no hint"},
	{WireStatus, GroupWire, "over the wire, an error status with its body: 408 TIMEOUT; 500, 502, 503, 504, 529 SERVER; 400, 401, 403, 404, 501 UNKNOWN; the status kept"},
	{WireContextOverflow, GroupWire, "over the wire, a 400 or 413 whose error names the context window in one of the providers' wordings or codes: CONTEXT_WINDOW_EXCEEDED"},
	{WireQuota, GroupWire, "over the wire, a 429 that is a spent quota (insufficient_quota), with a Retry-After: UNKNOWN, its status kept, no hint"},
	{WireStreamError, GroupWire, "over the wire, an error event inside a 200 stream, after 0 to 2 chunks, named by its type or (OpenAI) by its code alone: overloaded and server errors SERVER, rate limits RATE_LIMIT, timeouts TIMEOUT, context overflows CONTEXT_WINDOW_EXCEEDED, others UNKNOWN; no status, no hint"},
	{WireMalformedEvent, GroupWire, "over the wire, an event that does not decode, after 0 to 2 chunks and before the rest of the answer: TRANSPORT, never the end of the stream nor a skipped event"},
	{WireCut, GroupWire, "over the wire, the connection cut before any response or mid-body: TRANSPORT, its message naming the endpoint"},
	{WireStall, GroupWire, "over the wire, the server goes silent (before the response or after 0 to 2 chunks) until the adapter's own request deadline ends the request: TIMEOUT, at the deadline"},
	{WireFinishReason, GroupWire, "over the wire, an answer that ends with a finish reason the harness has no outcome for (content_filter, refusal, pause_turn, a new one): UNKNOWN carrying the reason"},
	{WireEmptyArguments, GroupWire, "over the wire, a tool call (to a tool nobody registered) streamed with no arguments: the harness gets {} and the next request sends it back as a JSON object"},
}

// Catalogue returns every fault in a stable order.
func Catalogue() []Fault { return slices.Clone(catalogue) }

// Names returns every fault name in catalogue order.
func Names() []string {
	names := make([]string, len(catalogue))
	for i, f := range catalogue {
		names[i] = f.Name
	}
	return names
}

// Count is the number of faults in the catalogue, len(Names()), as a constant: the size of an
// array indexed by catalogue position (the simulator's count of the faults that struck).
const Count = faultCount

// Lookup finds a fault by name.
func Lookup(name string) (Fault, bool) {
	for _, f := range catalogue {
		if f.Name == name {
			return f, true
		}
	}
	return Fault{}, false
}

// ParseList parses a comma-separated list of fault names (the -faults flag), refusing an unknown
// or repeated name with an error that names it.
func ParseList(list string) ([]string, error) {
	var names []string
	for _, raw := range strings.Split(list, ",") {
		name := strings.TrimSpace(raw)
		if name == "" {
			return nil, fmt.Errorf("faults: empty fault name in %q", list)
		}
		if _, ok := Lookup(name); !ok {
			return nil, fmt.Errorf("faults: unknown fault %q (known: %s)", name, strings.Join(Names(), ", "))
		}
		if slices.Contains(names, name) {
			return nil, fmt.Errorf("faults: fault %q named twice", name)
		}
		names = append(names, name)
	}
	return names, nil
}
