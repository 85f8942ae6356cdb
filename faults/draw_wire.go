package faults

import (
	"math"
	"slices"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/internal/splitmix"
)

// The wire's draw. A seed's plan is drawn first, the same with or without a wire; then, from a
// random source of its own, DrawWire puts some seeds' first answers on the wire, to go as bytes
// to a real adapter (setting their Wire form), dressing the model's failures in the wire's forms
// (a Retry-After in seconds or as a date, an in-stream error event, a 529 …) and reshaping clean
// answers into the wire's own faults (a stall, a cut, a malformed event, a context overflow in a
// provider's words …). Drawing it apart keeps every plan of a binary without a wire (one that does not
// import sim/wire) what it was, and a plan with one differs only in its wire answers.

// wireFaultCount is how many faults of the catalogue are the wire's: its last entries.
const wireFaultCount = 13

// swarmFaults is how many faults the swarm draws (DrawSwarm): all but the wire's.
const swarmFaults = faultCount - wireFaultCount

// WireShare is the share of the default mix's seeds that draw a wire. An answer on the wire
// costs the real adapter's request (its SDK encodes the conversation and decodes each event
// through reflection), several times what the model costs, so the share is small, and a wire
// seed puts on it only its first answers (wireAnswersMax), which every seed serves, with short
// conversations, each a failure of the model's in the wire's dress or a wire fault.
const WireShare = 0.08

// wireAnswersMax is how many of a wire seed's first answers go on the wire.
const wireAnswersMax = 3

// Bounds of a wire seed's draw: each wire fault is switched on with probability wireFaultOn, at a
// rate in [wireFaultRateLow, wireFaultRateHigh]: its weight among the faults that reshape a clean
// answer.
const (
	wireFaultOn                         = 0.8
	wireFaultRateLow, wireFaultRateHigh = 0.2, 0.6
	// wireCleanRate is the share of a wire seed's clean answers that go on the wire as they are,
	// not reshaped: what the adapters make of a whole answer is judged too.
	wireCleanRate = 0.3
)

// DrawWire draws the wire part of plan from seed (a stream of its own: see sim's schedule),
// among the allowed wire faults (nil: all of them): with no wire fault allowed it draws nothing;
// with allowed nil, a seed draws a wire with probability WireShare; with wire faults named, every
// seed does. It switches each allowed wire fault on with probability wireFaultOn, at a rate, and
// puts the plan's first wireAnswersMax wireable answers on the wire (their Wire form). It returns
// the wire's swarm (nil when the seed draws none), for the schedule's record.
func DrawWire(seed int64, plan *Plan, allowed []string) Swarm {
	var positions [wireFaultCount]int
	at := positions[:0]
	for i := swarmFaults; i < faultCount; i++ {
		if allowed == nil || slices.Contains(allowed, catalogue[i].Name) {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return nil
	}
	w := wireDrawer{rng: splitmix.New(seed), maxDelayMs: plan.Policy.MaxDelayMs}
	if allowed == nil && w.rng.Float64() >= WireShare {
		return nil
	}
	swarm := Swarm{}
	for _, i := range at {
		if w.rng.Float64() < wireFaultOn {
			w.on[i-swarmFaults] = true
			w.rate[i-swarmFaults] = math.Round((wireFaultRateLow+(wireFaultRateHigh-wireFaultRateLow)*w.rng.Float64())*100) / 100
			swarm[catalogue[i].Name] = w.rate[i-swarmFaults]
		}
	}
	if len(swarm) == 0 {
		i := at[w.rng.Intn(len(at))]
		w.on[i-swarmFaults], w.rate[i-swarmFaults] = true, wireFaultRateHigh
		swarm[catalogue[i].Name] = wireFaultRateHigh
	}
	perAnswerIDs := false
	for i := range plan.Answers[:min(len(plan.Answers), wireAnswersMax)] {
		a := &plan.Answers[i]
		perAnswerIDs = perAnswerIDs || a.CallIDsPerAnswer
		if wireable(a) {
			w.perAnswerIDs = perAnswerIDs
			w.answer(a)
		}
	}
	return swarm
}

// wireable reports whether a has a wire form: a provider ending its caller's goroutine, returning
// neither a stream nor an error, a stream that ignores its context, a plain Go error and a
// failure wrapped in other errors all happen in the client's process, and stay the model's.
func wireable(a *Answer) bool {
	return !a.Goexit && !a.NilStream && !a.IgnoreCancel && (a.Fail == nil || (!a.Fail.Plain && len(a.Fail.Wrap) == 0))
}

// wireDrawer holds a wire draw's source and swarm.
type wireDrawer struct {
	rng        splitmix.Rand
	on         [wireFaultCount]bool
	rate       [wireFaultCount]float64
	maxDelayMs float64
	// perAnswerIDs: an earlier answer numbered its calls per answer (call-id-reuse), and every
	// later one does.
	perAnswerIDs bool
}

// strikes reports whether the wire fault strikes one opportunity: on, and its rate drawn.
func (w *wireDrawer) strikes(fault string) bool {
	i := cataloguePosition(fault) - swarmFaults
	return w.on[i] && w.rng.Float64() < w.rate[i]
}

func (w *wireDrawer) between(low, high int64) int64 { return low + w.rng.Int63n(high-low+1) }

// pick returns one of options, uniformly.
func pick[T any](w *wireDrawer, options ...T) T { return options[w.rng.Intn(len(options))] }

// wireShapes are the wire faults that reshape a clean answer, in catalogue order.
var wireShapes = [...]string{
	WireRetryAfterMs, WireRetryAfterSeconds, WireRetryAfterDate, WireRetryAfterJunk, WireStatus,
	WireContextOverflow, WireQuota, WireStreamError, WireMalformedEvent, WireCut, WireStall,
	WireFinishReason, WireEmptyArguments,
}

// answer puts a on the wire: a failure of the model's in the wire's dress; a clean answer as it
// is (wireCleanRate), or reshaped by one of the switched-on wire faults, drawn by their rates.
func (w *wireDrawer) answer(a *Answer) {
	wire := &Wire{Protocol: pick(w, ProtocolOpenAI, ProtocolAnthropic)}
	if a.Fail != nil || (a.Chunks == 0 && len(a.Calls) == 0) {
		a.Wire = wire
		if a.Fail != nil {
			w.dress(a)
		}
		return
	}
	total := 0.0
	for j := range wireShapes { // in catalogue order: wireShapes[j] is the wire's fault j
		if w.on[j] {
			total += w.rate[j]
		}
	}
	if w.rng.Float64() < wireCleanRate || total == 0 {
		a.Wire = wire // the clean answer, text and tool calls, through the real adapter
		return
	}
	draw := w.rng.Float64() * total
	for j, fault := range wireShapes {
		if !w.on[j] {
			continue
		}
		if draw -= w.rate[j]; draw < 0 || j == len(wireShapes)-1 {
			*a = w.shape(fault, a.ChunkDelayMs, wire)
			return
		}
	}
	a.Wire = wire
}

// dress draws the wire's form of a's failure (a copy: the plan's failures share an array).
func (w *wireDrawer) dress(a *Answer) {
	f := *a.Fail
	a.Fail = &f
	if f.RetryAfterMs > 0 {
		a.Wire.RetryAfter = w.retryAfterForm()
	}
	before := a.Chunks == 0
	switch {
	case before && f.Code == harness.CodeServer && w.strikes(WireStatus):
		f.Status = pick(w, 500, 502, 503, 504, 529)
	case before && w.inStreamable(f.Code) && w.strikes(WireStreamError):
		a.Wire.InStream = true
		a.Wire.ByCode = a.Wire.Protocol == ProtocolOpenAI && w.rng.Float64() < 0.5
		f.Status, f.RetryAfterMs = 0, 0 // an event carries neither
	case !before && a.Wire.Protocol == ProtocolOpenAI && w.inStreamable(f.Code) && w.strikes(WireStreamError):
		a.Wire.ByCode = true // the event after the chunks names its kind by its code alone
	}
}

// inStreamable reports whether a failure of code has an error event to be sent as.
func (w *wireDrawer) inStreamable(code string) bool {
	switch code {
	case harness.CodeRateLimit, harness.CodeServer, harness.CodeContextWindowExceeded:
		return true
	}
	return false
}

// retryAfterForm draws the form a hint goes in, among the switched-on Retry-After faults (the
// plain retry-after-ms when none is).
func (w *wireDrawer) retryAfterForm() string {
	var forms []string
	for _, f := range []struct{ fault, form string }{{WireRetryAfterMs, RetryAfterMs}, {WireRetryAfterSeconds, RetryAfterSeconds}, {WireRetryAfterDate, RetryAfterDate}, {WireRetryAfterJunk, RetryAfterJunk}} {
		if w.on[cataloguePosition(f.fault)-swarmFaults] {
			forms = append(forms, f.form)
		}
	}
	if len(forms) == 0 {
		return RetryAfterMs
	}
	switch form := pick(w, forms...); form {
	case RetryAfterMs:
		return pick(w, RetryAfterMs, RetryAfterBoth)
	case RetryAfterDate:
		return pick(w, RetryAfterDate, RetryAfterRFC850, RetryAfterAsctime)
	default:
		return form
	}
}

// shape is a clean answer reshaped by a wire fault, with the clean answer's chunk delay.
func (w *wireDrawer) shape(fault string, delayMs int64, wire *Wire) Answer {
	a := Answer{Fault: fault, ChunkDelayMs: delayMs, Wire: wire}
	fail := func(code, message string, status int) *Fail {
		return &Fail{Code: code, Message: message, Status: status}
	}
	switch fault {
	case WireRetryAfterMs, WireRetryAfterSeconds, WireRetryAfterDate, WireRetryAfterJunk:
		a.Fail = fail(harness.CodeRateLimit, "rate limited", 429)
		a.Fail.RetryAfterMs = float64(w.between(1, max(int64(w.maxDelayMs), 1)))
		wire.RetryAfter = map[string]string{WireRetryAfterMs: pick(w, RetryAfterMs, RetryAfterBoth), WireRetryAfterSeconds: RetryAfterSeconds,
			WireRetryAfterDate: pick(w, RetryAfterDate, RetryAfterRFC850, RetryAfterAsctime), WireRetryAfterJunk: RetryAfterJunk}[fault]
	case WireStatus:
		s := pick(w, wireStatuses...)
		a.Fail = fail(s.code, s.message, s.status)
	case WireContextOverflow:
		o := pick(w, contextOverflows[wire.Protocol]...)
		a.Fail = fail(harness.CodeContextWindowExceeded, o.message, o.status)
		wire.ErrorType = o.errorType
	case WireQuota:
		wire.Protocol = ProtocolOpenAI // a spent quota is OpenAI's 429
		a.Fail = fail(harness.CodeUnknown, "You exceeded your current quota, please check your plan and billing details.", 429)
		wire.ErrorType = "insufficient_quota"
	case WireStreamError:
		e := pick(w, streamErrors[wire.Protocol]...)
		a.Chunks = int(w.between(0, 2))
		a.Fail = fail(e.code, e.message, 0)
		wire.InStream, wire.ErrorType = true, e.errorType
		wire.ByCode = wire.Protocol == ProtocolOpenAI && e.errorType != "" && w.rng.Float64() < 0.5
	case WireMalformedEvent:
		a.Chunks = max(int(w.between(-1, 2)), 0) // half the time the first event is the broken one
		a.Finish = harness.FinishCompleted
		a.Fail = fail(harness.CodeTransport, "malformed stream event", 0)
		wire.Malformed = true
	case WireCut:
		a.Chunks = int(w.between(0, 2))
		a.Fail = fail(harness.CodeTransport, "connection reset by peer", 0)
		wire.Cut = true
	case WireStall:
		a.Chunks = int(w.between(0, 2))
		a.Fail = fail(harness.CodeTimeout, "the server went silent", 0)
		wire.Stall = true
	case WireFinishReason:
		a.Chunks = int(w.between(0, 2))
		wire.FinishReason = pick(w, unknownFinishes[wire.Protocol]...)
		a.Fail = fail(harness.CodeUnknown, "finish reason "+wire.FinishReason, 0)
	case WireEmptyArguments:
		a.Chunks, a.Finish = int(w.between(0, 1)), harness.FinishToolCalls
		n := int(w.between(1, 3))
		a.Calls = make([]Call, 0, n)
		for j := range n {
			c := Call{Name: UnknownTool, LatencyMs: w.between(1, 50), Outcome: OutcomeOK, Faults: []string{ToolUnknown}}
			if j > 0 && w.rng.Float64() < 0.5 {
				c = Call{Name: pick(w, "read", "search", "write"), LatencyMs: w.between(1, 50), Outcome: OutcomeOK}
			}
			a.Calls = append(a.Calls, c)
		}
		a.CallIDsPerAnswer = w.perAnswerIDs
		wire.EmptyArguments = true
	}
	return a
}

// wireStatus is an error status the wire sends and the code the harness must make of it.
type wireStatus struct {
	status        int
	code, message string
}

var wireStatuses = []wireStatus{
	{408, harness.CodeTimeout, "request timeout"},
	{500, harness.CodeServer, "internal server error"},
	{502, harness.CodeServer, "bad gateway"},
	{503, harness.CodeServer, "service unavailable"},
	{504, harness.CodeServer, "gateway timeout"},
	{529, harness.CodeServer, "Overloaded"},
	{400, harness.CodeUnknown, "invalid request: messages[0].role is required"},
	{401, harness.CodeUnknown, "invalid x-api-key"},
	{403, harness.CodeUnknown, "your key may not use this model"},
	{404, harness.CodeUnknown, "model not found"},
	{501, harness.CodeUnknown, "not implemented"},
}

// contextOverflow is a provider's way of saying the request does not fit the context window:
// the status, the error type or code (may be empty), the message.
type contextOverflow struct {
	status             int
	errorType, message string
}

var contextOverflows = map[string][]contextOverflow{
	ProtocolOpenAI: {
		{400, "context_length_exceeded", "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens."},
		{400, "", "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens."},
		{400, "", "request too large for model context"},
		{400, "exceed_context_size_error", "the request exceeds the available context size, try increasing it"},
		{400, "", "Prompt contains 40000 tokens, too large for model with 32768 maximum context length"},
		{400, "", "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."},
	},
	ProtocolAnthropic: {
		{400, "", "prompt is too long: 210000 tokens > 200000 maximum"},
		{400, "", "input length and `max_tokens` exceed context limit: 190000 + 20000 > 200000, decrease input length or `max_tokens` and try again"},
		{413, "request_too_large", "Request exceeds the maximum allowed number of bytes."},
		{400, "", "request too large for model context"},
	},
}

// streamError is an error event's type (or code) and message, and the code it stands for.
type streamError struct {
	errorType, message, code string
}

var streamErrors = map[string][]streamError{
	ProtocolOpenAI: {
		{"server_error", "The server had an error while processing your request.", harness.CodeServer},
		{"overloaded_error", "The engine is currently overloaded.", harness.CodeServer},
		{"rate_limit_exceeded", "Rate limit reached for requests.", harness.CodeRateLimit},
		{"timeout", "The request timed out upstream.", harness.CodeTimeout},
		{"context_length_exceeded", "This model's maximum context length is 8192 tokens.", harness.CodeContextWindowExceeded},
		{"invalid_request_error", "Invalid tool schema.", harness.CodeUnknown},
		{"insufficient_quota", "You exceeded your current quota.", harness.CodeUnknown},
	},
	ProtocolAnthropic: {
		{"overloaded_error", "Overloaded", harness.CodeServer},
		{"api_error", "Internal server error", harness.CodeServer},
		{"rate_limit_error", "Number of requests has exceeded your rate limit.", harness.CodeRateLimit},
		{"timeout_error", "Request timed out upstream.", harness.CodeTimeout},
		{"request_too_large", "Request exceeds the maximum allowed number of bytes.", harness.CodeContextWindowExceeded},
		{"invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum", harness.CodeContextWindowExceeded},
		{"permission_error", "Your key does not have permission to use this resource.", harness.CodeUnknown},
	},
}

// unknownFinishes are finish reasons each protocol sends that the harness has no outcome for.
var unknownFinishes = map[string][]string{
	ProtocolOpenAI:    {"content_filter", "something_new"},
	ProtocolAnthropic: {"refusal", "pause_turn", "something_new"},
}
