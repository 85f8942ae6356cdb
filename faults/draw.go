package faults

import (
	"cmp"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strconv"

	"github.com/turnsim/turnsim/harness"
)

// Swarm is the subset of faults one seed switches on, each with the rate at which it strikes
// (a probability per opportunity: per answer, per tool call, or scaling a count of actions).
type Swarm map[string]float64

// Enabled lists the swarm's faults in catalogue order, so that drawing never depends on map
// iteration order.
func (s Swarm) Enabled() []string {
	var names []string
	for _, f := range catalogue {
		if _, ok := s[f.Name]; ok {
			names = append(names, f.Name)
		}
	}
	return names
}

// catalogueNames is Names(), made once: DrawSwarm reads it for every seed of the default mix.
var catalogueNames = Names()

// DrawSwarm switches each allowed fault on with probability one half, at a rate drawn from
// [0.05, 0.5]; at least one fault is always on. allowed nil means the whole catalogue.
func DrawSwarm(rng *rand.Rand, allowed []string) Swarm {
	ordered := catalogueNames // the default mix: no list to build per seed
	if allowed != nil {
		ordered = make([]string, 0, len(catalogue))
		for _, f := range catalogue {
			if slices.Contains(allowed, f.Name) {
				ordered = append(ordered, f.Name)
			}
		}
	}
	swarm := make(Swarm, len(ordered)) // room for all: no rehashing as faults switch on
	for _, name := range ordered {
		if rng.Float64() < 0.5 {
			swarm[name] = drawRate(rng)
		}
	}
	if len(swarm) == 0 && len(ordered) > 0 {
		swarm[ordered[rng.Intn(len(ordered))]] = drawRate(rng)
	}
	return swarm
}

func drawRate(rng *rand.Rand) float64 { return math.Round((0.05+0.45*rng.Float64())*100) / 100 }

// drawer holds what DrawPlan needs while it draws.
type drawer struct {
	rng    *rand.Rand
	swarm  Swarm
	policy harness.RetryPolicy
	// order is drawAnswer's shuffle of providerFaults, reused from answer to answer.
	order []int
	// callIDsPerAnswer: call-id-reuse struck an answer, and the provider numbers its calls per
	// answer from then on.
	callIDsPerAnswer bool
}

// perm is rng.Perm(n) into d.order, without a new slice each time: the same draws, the same
// permutation (math/rand's own algorithm, which Go 1 keeps as it is).
func (d *drawer) perm(n int) []int {
	if cap(d.order) < n {
		d.order = make([]int, n)
	}
	m := d.order[:n]
	for i := range n {
		j := d.rng.Intn(i + 1)
		m[i] = m[j]
		m[j] = i
	}
	return m
}

// on reports whether fault strikes at this opportunity.
func (d *drawer) on(fault string) bool {
	rate, ok := d.swarm[fault]
	return ok && d.rng.Float64() < rate
}

func (d *drawer) between(low, high int64) int64 { return low + d.rng.Int63n(high-low+1) }

// DrawPlan turns a swarm into an explicit plan. Every draw comes from rng, in a fixed order.
func DrawPlan(rng *rand.Rand, swarm Swarm) Plan {
	d := &drawer{rng: rng, swarm: swarm}
	var harnessDefaults bool
	d.policy, harnessDefaults = d.drawPolicy()
	plan := Plan{
		Policy:               d.policy,
		MaxParallelToolCalls: int(d.between(1, 4)),
		HorizonMs:            d.between(5_000, 60_000),
		HarnessDefaults:      harnessDefaults,
	}
	if harnessDefaults {
		plan.MaxParallelToolCalls = SpecMaxParallelToolCalls
	}
	if _, ok := swarm[ContextWindowExceeded]; ok && rng.Float64() < 0.7 {
		plan.CompactionBudget = int(d.between(1, 2))
	}
	answers := d.between(4, 24)
	plan.Answers = make([]Answer, 0, answers)
	for range answers {
		plan.Answers = append(plan.Answers, d.drawAnswer())
	}
	plan.Actions = d.drawActions(plan.HorizonMs)
	if _, ok := swarm[AppendRefused]; ok {
		for range d.between(1, 2) {
			from := d.between(0, plan.HorizonMs-1)
			if rng.Float64() < 0.5 {
				// one append of one type, somewhere in a long window: reaches the rare paths
				kind := RefusableTypes[rng.Intn(len(RefusableTypes))]
				plan.Refusals = append(plan.Refusals, Window{FromMs: from, UntilMs: from + d.between(1, 10_000), Type: kind, Count: 1})
				continue
			}
			plan.Refusals = append(plan.Refusals, Window{FromMs: from, UntilMs: from + d.between(1, 300)})
		}
	}
	if _, ok := swarm[StoreOutage]; ok {
		from := d.between(0, plan.HorizonMs-1)
		until := min(plan.HorizonMs, from+d.between(5_000, plan.HorizonMs))
		kind := OutageTypes[rng.Intn(len(OutageTypes))]
		plan.Refusals = append(plan.Refusals, Window{FromMs: from, UntilMs: until, Type: kind, Fault: StoreOutage})
	}
	if _, ok := swarm[SlowCompaction]; ok {
		plan.CompactionBudget = max(plan.CompactionBudget, int(d.between(1, 2)))
		plan.CompactionDelayMs = d.between(50, 5_000)
	}
	if _, ok := swarm[CallIDReuse]; ok {
		plan.Refusals = append(plan.Refusals, d.unansweredCalls(plan.HorizonMs))
	}
	return plan
}

// harnessDefaultsRate is the share of plans that build the agent with the harness's own defaults.
const harnessDefaultsRate = 0.25

// drawPolicy draws a valid retry policy in whole milliseconds, every field set explicitly (the
// retryable codes are the spec's, one time in eight changed). One time in four it is the spec's default policy instead, and
// harnessDefaults says the agent is to be built with the harness's defaults, judged against it.
func (d *drawer) drawPolicy() (p harness.RetryPolicy, harnessDefaults bool) {
	p = SpecRetryPolicy()
	if d.rng.Float64() < harnessDefaultsRate {
		return p, true
	}
	if d.rng.Float64() < 1.0/3 {
		p.Mode, p.MaxRetries = harness.ModeAlways, 0
	} else {
		p.MaxRetries = int(d.between(1, 4))
	}
	p.InitialDelayMs = float64(d.between(50, 1000))
	p.MaxDelayMs = float64(min(int64(p.InitialDelayMs)*d.between(2, 40), 30_000))
	p.JitterRatio = math.Round(d.rng.Float64()*50) / 100
	if d.rng.Float64() < customCodesRate {
		p.RetryableCodes = d.customCodes(p.RetryableCodes)
	}
	return p, false
}

// customCodesRate is the share of drawn policies whose retryable codes differ from the spec's
// default: the harness's handling of a list it was given, and the policyKey's codes part.
const customCodesRate = 0.125

// customCodes changes the spec's list one way: drops one code (normal mode then gives up on it),
// or adds CONTEXT_WINDOW_EXCEEDED (normal mode then retries it itself, before compaction).
func (d *drawer) customCodes(codes []string) []string {
	if d.rng.Float64() < 0.5 {
		drop := d.rng.Intn(len(codes))
		return append(codes[:drop:drop], codes[drop+1:]...)
	}
	return append(codes, harness.CodeContextWindowExceeded)
}

// providerFaults are the faults that shape an answer, in catalogue order.
var providerFaults = []string{
	RateLimit, RateLimitAfterBelow, RateLimitAfterEqual, RateLimitAfterAbove, RetryAfterInvalid,
	Server, Timeout, Transport, EmptyResponse, ContextWindowExceeded, PlainError, FailMidStream,
	MaxTokens, ToolCalls, SlowStream, WrappedFailure, StreamIgnoresCancel, ProviderGoexit,
	CallIDReuse,
}

// drawAnswer shapes one answer: the first enabled provider fault (in a shuffled order) that
// strikes decides it; otherwise it is clean, a completed text or, one time in five, tool calls.
func (d *drawer) drawAnswer() Answer {
	order := d.perm(len(providerFaults))
	for _, i := range order {
		if fault := providerFaults[i]; d.on(fault) {
			return d.shape(fault)
		}
	}
	if d.rng.Float64() < 0.2 {
		return d.toolCallAnswer("")
	}
	return d.textAnswer("", harness.FinishCompleted)
}

func (d *drawer) textAnswer(fault string, finish harness.Finish) Answer {
	return Answer{Fault: fault, Chunks: int(d.between(1, 3)), ChunkDelayMs: d.between(5, 200), Finish: finish}
}

func (d *drawer) failure(fault string, chunks int, fail Fail) Answer {
	return Answer{Fault: fault, Chunks: chunks, ChunkDelayMs: d.between(10, 300), Fail: &fail}
}

func (d *drawer) toolCallAnswer(fault string) Answer {
	a := Answer{Fault: fault, Chunks: int(d.between(0, 1)), ChunkDelayMs: d.between(5, 100), Finish: harness.FinishToolCalls}
	for range d.between(1, 5) {
		a.Calls = append(a.Calls, d.drawCall())
	}
	d.callIDsPerAnswer = d.callIDsPerAnswer || d.on(CallIDReuse)
	a.CallIDsPerAnswer = d.callIDsPerAnswer
	return a
}

func (d *drawer) shape(fault string) Answer {
	maxDelay := int64(d.policy.MaxDelayMs)
	rateLimit := func(retryAfterMs float64) Fail {
		return Fail{Code: harness.CodeRateLimit, Message: "rate limited", Status: 429, RetryAfterMs: retryAfterMs}
	}
	switch fault {
	case RateLimit:
		return d.failure(fault, 0, rateLimit(0))
	case RateLimitAfterBelow:
		return d.failure(fault, 0, rateLimit(float64(d.between(1, max(maxDelay-1, 1)))))
	case RateLimitAfterEqual:
		return d.failure(fault, 0, rateLimit(d.policy.MaxDelayMs))
	case RateLimitAfterAbove:
		return d.failure(fault, 0, rateLimit(float64(maxDelay+d.between(1, 5*maxDelay))))
	case RetryAfterInvalid:
		return d.failure(fault, 0, rateLimit(-float64(d.between(0, 5000))))
	case Server:
		return d.failure(fault, 0, Fail{Code: harness.CodeServer, Message: "internal server error", Status: []int{500, 502, 503}[d.rng.Intn(3)]})
	case Timeout:
		return d.failure(fault, 0, Fail{Code: harness.CodeTimeout, Message: "request timed out"})
	case Transport:
		return d.failure(fault, 0, Fail{Code: harness.CodeTransport, Message: "fetch failed", CauseChain: true})
	case EmptyResponse:
		return Answer{Fault: fault, Chunks: 0, ChunkDelayMs: d.between(10, 300), Finish: harness.FinishCompleted}
	case ContextWindowExceeded:
		return d.failure(fault, 0, Fail{Code: harness.CodeContextWindowExceeded, Message: "prompt is too long", Status: 400})
	case PlainError:
		return d.failure(fault, 0, Fail{Plain: true, Message: "decode response: unexpected EOF"})
	case FailMidStream:
		code := []string{harness.CodeServer, harness.CodeTransport, harness.CodeTimeout}[d.rng.Intn(3)]
		return d.failure(fault, int(d.between(1, 3)), Fail{Code: code, Message: "stream interrupted"})
	case MaxTokens:
		a := d.textAnswer(fault, harness.FinishMaxTokens)
		if d.rng.Float64() < 0.5 {
			a.Calls = []Call{d.drawCall()} // truncated: must never run
		}
		return a
	case ToolCalls:
		return d.toolCallAnswer(fault)
	case SlowStream:
		a := d.textAnswer(fault, harness.FinishCompleted)
		a.ChunkDelayMs = d.between(500, 5000)
		return a
	case WrappedFailure:
		return d.wrappedFailure()
	case StreamIgnoresCancel:
		return d.streamIgnoringCancel()
	case ProviderGoexit:
		return Answer{Fault: fault, Chunks: int(d.between(0, 2)), ChunkDelayMs: d.between(10, 300), Goexit: true}
	case CallIDReuse:
		d.callIDsPerAnswer = true // tool calls numbered from 1, in this answer and every later one
		return d.toolCallAnswer(fault)
	}
	panic(fmt.Sprintf("faults: invariant: no shape for provider fault %q", fault))
}

// unansweredCalls is call-id-reuse's refusal window: a reused id only matters to a call left
// without its result, which takes the executor failing, so the store refuses one tool/call or
// tool/result append in a window of up to 10 s.
func (d *drawer) unansweredCalls(horizonMs int64) Window {
	from := d.between(0, horizonMs-1)
	kind := []string{harness.TypeToolCall, harness.TypeToolResult}[d.rng.Intn(2)]
	return Window{FromMs: from, UntilMs: from + d.between(1, 10_000), Type: kind, Count: 1, Fault: CallIDReuse}
}

// drawCall draws one tool call and how its tool behaves.
func (d *drawer) drawCall() Call {
	c := Call{LatencyMs: d.between(1, 50), Outcome: OutcomeOK}
	switch {
	case d.on(ToolUnknown):
		c.Name = UnknownTool
		c.Faults = append(c.Faults, ToolUnknown)
	case d.rng.Float64() < 0.7:
		c.Name = ParallelTools[d.rng.Intn(len(ParallelTools))]
	default:
		c.Name = ExclusiveTools[d.rng.Intn(len(ExclusiveTools))]
	}
	if d.on(ToolLongLatency) {
		c.LatencyMs = d.between(2_000, 30_000)
		c.Faults = append(c.Faults, ToolLongLatency)
	} else if d.on(ToolLatency) {
		c.LatencyMs = d.between(10, 800)
		c.Faults = append(c.Faults, ToolLatency)
	}
	if d.on(ToolPanic) {
		c.Outcome = OutcomePanic
		c.Faults = append(c.Faults, ToolPanic)
	} else if d.on(ToolError) {
		c.Outcome = OutcomeError
		c.Faults = append(c.Faults, ToolError)
	} else if d.on(ToolGoexit) {
		c.Outcome = OutcomeGoexit
		c.Faults = append(c.Faults, ToolGoexit)
	}
	if d.on(ToolIgnoresCancel) {
		// It runs long enough for a cancel to land in it: ignoring a cancel needs one to ignore.
		c.IgnoreCancel = true
		c.LatencyMs = max(c.LatencyMs, d.between(500, 5_000))
		c.Faults = append(c.Faults, ToolIgnoresCancel)
	}
	return c
}

// drawActions scripts the user and host: the first followup at 0, the user-group faults at
// random times before the horizon, and a few WhenIdle watchers.
func (d *drawer) drawActions(horizonMs int64) []Action {
	actions := make([]Action, 1, 16) // room for the usual plan's actions: they are large
	actions[0] = Action{AtMs: 0, Kind: ActFollowup, Text: "task 1"}
	at := func() int64 { return d.between(0, horizonMs-1) }
	// count scales the number of occurrences with the fault's rate: 1 to 4 at the highest rates.
	count := func(fault string) int {
		rate, ok := d.swarm[fault]
		if !ok {
			return 0
		}
		return 1 + int(d.rng.Float64()*rate*8)
	}
	sends := 1
	for _, s := range []struct{ fault, kind string }{{Followup, ActFollowup}, {Steer, ActSteer}, {Inject, ActInject}} {
		for range count(s.fault) {
			sends++
			actions = append(actions, Action{AtMs: at(), Kind: s.kind, Text: s.kind + " " + strconv.Itoa(sends), Fault: s.fault})
		}
	}
	for _, c := range []struct{ fault, cause string }{{CancelUser, harness.CauseUser}, {CancelParent, harness.CauseParent}, {CancelHook, harness.CauseHook}} {
		for range count(c.fault) {
			a := Action{AtMs: at(), Kind: ActCancel, Cause: c.cause, KeepInbox: d.rng.Float64() < 0.5, Fault: c.fault}
			if c.cause == harness.CauseHook {
				a.Reason = "budget hook"
			}
			actions = append(actions, a)
		}
	}
	if _, ok := d.swarm[Dispose]; ok {
		actions = append(actions, Action{AtMs: at(), Kind: ActDispose, Fault: Dispose})
	}
	if _, ok := d.swarm[PluginEnd]; ok {
		actions = append(actions, Action{AtMs: at(), Kind: ActPluginEnd, Fault: PluginEnd})
	} else if _, slow := d.swarm[SlowCompaction]; slow && d.rng.Float64() < 0.5 {
		// a handler that deliberates is what a disposal can land on: bring the two together
		actions = append(actions, Action{AtMs: at(), Kind: ActPluginEnd, Fault: PluginEnd})
	}
	_, crashes := d.swarm[Crash]
	_, tears := d.swarm[TornWrite]
	_, powerLosses := d.swarm[PowerLoss]
	if crashes || tears || powerLosses {
		for range d.between(1, 3) {
			a := Action{AtMs: at(), Kind: ActCrash, RestartAfterMs: d.between(0, 2000), Fault: Crash}
			switch {
			case d.on(TornWrite):
				a.InAppend, a.Written, a.Fault = true, WrittenTorn, TornWrite
			case d.on(PowerLoss):
				a.Fault, a.Unsynced = PowerLoss, []string{UnsyncedDropped, UnsyncedTorn}[d.rng.Intn(2)]
				if d.rng.Float64() < 0.5 {
					a.InAppend, a.Written = true, []string{WrittenNone, WrittenWhole, WrittenTorn}[d.rng.Intn(3)]
				}
			case !crashes:
				continue
			case d.rng.Float64() < 0.5:
				a.InAppend, a.Written = true, []string{WrittenNone, WrittenWhole}[d.rng.Intn(2)]
			}
			actions = append(actions, a)
		}
	}
	for range count(ObserverCallback) {
		a := Action{AtMs: at(), Kind: ActObserver, On: ObservedTypes[d.rng.Intn(len(ObservedTypes))], Fault: ObserverCallback}
		switch d.rng.Intn(4) {
		case 0:
			sends++
			a.Then, a.Text = ActFollowup, "observer followup "+strconv.Itoa(sends)
		case 1:
			sends++
			a.Then, a.Text = ActSteer, "observer steer "+strconv.Itoa(sends)
		case 2:
			a.Then, a.Cause, a.KeepInbox = ActCancel, harness.CauseUser, d.rng.Float64() < 0.5
		default:
			a.Then = ThenPanic
		}
		actions = append(actions, a)
	}
	for range count(SendCancelRace) {
		atMs := at()
		sends++
		kind := []string{ActSteer, ActFollowup}[d.rng.Intn(2)]
		send := Action{AtMs: atMs, Kind: kind, Text: "racing " + kind + " " + strconv.Itoa(sends), Fault: SendCancelRace, Concurrent: true}
		cancel := Action{AtMs: atMs, Kind: ActCancel, Cause: harness.CauseUser, Fault: SendCancelRace, Concurrent: true}
		if d.rng.Float64() < 0.5 {
			send, cancel = cancel, send // the scheduler interleaves them either way; the order adds to it
		}
		actions = append(actions, send, cancel)
	}
	for range d.between(0, 2) {
		actions = append(actions, Action{AtMs: at(), Kind: ActWaitIdle})
	}
	slices.SortStableFunc(actions, func(a, b Action) int { return cmp.Compare(a.AtMs, b.AtMs) })
	return actions
}
