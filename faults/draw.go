package faults

import (
	"cmp"
	"fmt"
	"math"
	"math/rand"
	"slices"

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

// allPositions is every catalogue position in order: the default mix's faults, no list to build
// per seed.
var allPositions = func() (at [faultCount]int) {
	for i := range at {
		at[i] = i
	}
	return at
}()

// DrawSwarm switches each allowed fault on with probability one half, at a rate drawn from
// [0.05, 0.5]; at least one fault is always on. allowed nil means the whole catalogue.
func DrawSwarm(rng *rand.Rand, allowed []string) Swarm {
	var rates swarmRates
	switchedOn := drawSwarm(rng, allowed, &rates)
	return rates.swarm(switchedOn)
}

// DrawSchedule draws a schedule's swarm and plan from seed: what DrawSwarm and then DrawPlan draw
// from NewRand(seed), value for value, the swarm kept as the drawer's table while the plan is
// drawn.
func DrawSchedule(seed int64, allowed []string) (Swarm, Plan) {
	rng := NewRand(seed)
	d := drawer{rng: rng}
	switchedOn := drawSwarm(rng, allowed, &d.rates)
	return d.rates.swarm(switchedOn), d.drawPlan()
}

// drawSwarm is DrawSwarm into the table rates, empty before: each allowed fault switched on
// with probability one half, at least one. It returns how many it switched on. It works by
// catalogue position, which is the table's; the map is made from the table
// (swarmRates.swarm), once its size is known.
func drawSwarm(rng *rand.Rand, allowed []string, rates *swarmRates) (switchedOn int) {
	at := allPositions[:swarmFaults]
	if allowed != nil {
		at = make([]int, 0, len(catalogue))
		for i, f := range catalogue {
			if f.Group != GroupWire && slices.Contains(allowed, f.Name) {
				at = append(at, i)
			}
		}
	}
	for _, i := range at {
		if rng.Float64() < 0.5 {
			rates.on[i], rates.rate[i] = true, drawRate(rng)
			switchedOn++
		}
	}
	if switchedOn == 0 && len(at) > 0 {
		i := at[rng.Intn(len(at))]
		rates.on[i], rates.rate[i] = true, drawRate(rng)
		switchedOn++
	}
	return switchedOn
}

// drawRate draws a fault's rate, in [0.05, 0.5] to the hundredth.
func drawRate(rng *rand.Rand) float64 { return math.Round((0.05+0.45*rng.Float64())*100) / 100 }

// drawer holds what DrawPlan needs while it draws.
type drawer struct {
	rng *rand.Rand
	// rates is the swarm as a table by catalogue position, for onAt and hasAt.
	rates  swarmRates
	policy harness.RetryPolicy
	// order is drawAnswer's shuffle of providerFaults (perm), drawn anew for each answer.
	order [faultCount]int
	// callIDsPerAnswer: call-id-reuse struck an answer, and the provider numbers its calls per
	// answer from then on.
	callIDsPerAnswer bool
	// aimedRefusals are the refusal windows the aimed actions need (drawAimed), for the plan's.
	aimedRefusals []Window
}

// perm is rng.Perm(n) into d.order: the same draws and the same permutation, by math/rand's own
// algorithm (which Go 1 keeps as it is), an inside-out shuffle whose step i draws
// rng.Intn(i+1) through Int31n: the draw modulo the bound, unless it lies in the bound's last,
// partial run of values (intnRejecting).
func (d *drawer) perm(n int) []int {
	var m []int
	if n <= len(d.order) {
		m = d.order[:n]
	} else {
		m = make([]int, n)
	}
	partialRuns := uint32(1<<31) - uint32(n) // no step's partial run starts before it
	for place := range m {
		v := uint32(d.rng.Int63() >> 32) // Int31: in [0, 1<<31)
		if v >= partialRuns {
			v = d.intnRejecting(uint32(place+1), v)
		}
		j := int(v) % (place + 1) // j's element moves to place, which j takes
		m[place] = m[j]
		m[j] = place
	}
	return m
}

// intnRejecting finishes perm's Int31n(n) for a first draw v near the top of [0, 1<<31): it
// draws again while the draw lies in the last, partial run of n values (none, for a power of
// two).
func (d *drawer) intnRejecting(n, v uint32) uint32 {
	highest := uint32((1 << 31) - 1 - (1<<31)%n)
	for v > highest {
		v = uint32(d.rng.Int63() >> 32)
	}
	return v
}

// onAt draws whether the fault at catalogue position i strikes: never when the swarm has it off.
func (d *drawer) onAt(i int) bool { return d.rates.on[i] && d.rng.Float64() < d.rates.rate[i] }

func (d *drawer) between(low, high int64) int64 { return low + d.rng.Int63n(high-low+1) }

// DrawPlan turns a swarm into an explicit plan. Every draw comes from rng, in a fixed order.
func DrawPlan(rng *rand.Rand, swarm Swarm) Plan {
	d := drawer{rng: rng}
	d.rates.fill(swarm)
	return d.drawPlan()
}

// drawPlan is DrawPlan, once d holds the swarm as its table of rates.
func (d *drawer) drawPlan() Plan {
	rng := d.rng
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
	if d.hasAt(contextWindowExceededAt) && rng.Float64() < 0.7 {
		plan.CompactionBudget = int(d.between(1, 2))
	}
	answers := d.between(4, answersMax)
	plan.Answers = make([]Answer, 0, answers)
	for range answers {
		plan.Answers = append(plan.Answers, d.drawAnswer())
	}
	plan.Actions = d.drawActions(plan.HorizonMs)
	var refusals []Window
	if d.hasAt(appendRefusedAt) {
		for range d.between(1, 2) {
			from := d.between(0, plan.HorizonMs-1)
			if rng.Float64() < 0.5 {
				// one append of one type, somewhere in a long window: reaches the rare paths
				kind := RefusableTypes[rng.Intn(len(RefusableTypes))]
				refusals = append(refusals, Window{FromMs: from, UntilMs: from + d.between(1, 10_000), Type: kind, Count: 1})
				continue
			}
			refusals = append(refusals, Window{FromMs: from, UntilMs: from + d.between(1, 300)})
		}
	}
	if d.hasAt(storeOutageAt) {
		from := d.between(0, plan.HorizonMs-1)
		until := min(plan.HorizonMs, from+d.between(5_000, plan.HorizonMs))
		kind := OutageTypes[rng.Intn(len(OutageTypes))]
		refusals = append(refusals, Window{FromMs: from, UntilMs: until, Type: kind, Fault: StoreOutage})
	}
	if d.hasAt(slowCompactionAt) {
		plan.CompactionBudget = max(plan.CompactionBudget, int(d.between(1, 2)))
		plan.CompactionDelayMs = d.between(50, 5_000)
		if rng.Float64() < 0.5 {
			plan.CompactionFailures = int(d.between(1, 2))
		}
	}
	if d.hasAt(callIDReuseAt) {
		refusals = append(refusals, d.unansweredCalls(plan.HorizonMs))
	}
	refusals = append(refusals, d.aimedRefusals...)
	plan.Refusals = refusals
	if d.hasAt(preemptionAt) {
		plan.PreemptRate = 2 * d.rates.rate[preemptionAt] // the swarm's [0.05, 0.5], doubled
	}
	if !harnessDefaults {
		plan.RetryStrategy = d.drawRetryStrategy() // last: it shifts no other draw
	}
	return plan
}

// Bounds on a drawn plan.
const (
	// actionsUsual is as many actions as a plan usually has, at most: a start for its list.
	actionsUsual = 16
	// answersMax is the most answers a drawn plan has, each with at most one failure.
	answersMax = 24
	// callsPerAnswerMax is the most tool calls a drawn answer asks for.
	callsPerAnswerMax = 5
)

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
	CallIDReuse, ProviderNilStream,
}

// providerFaultIndex is each provider fault's catalogue position, in providerFaults' order.
var providerFaultIndex = func() []int {
	at := make([]int, len(providerFaults))
	for i, fault := range providerFaults {
		at[i] = cataloguePosition(fault)
	}
	return at
}()

// drawAnswer shapes one answer: the first enabled provider fault (in a shuffled order) that
// strikes decides it; otherwise it is clean, a completed text or, one time in five, tool calls.
func (d *drawer) drawAnswer() Answer {
	for _, i := range d.perm(len(providerFaults)) {
		if d.onAt(providerFaultIndex[i]) {
			return d.shape(providerFaults[i])
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
	n := d.between(1, callsPerAnswerMax)
	a.Calls = make([]Call, 0, n)
	for range n {
		a.Calls = append(a.Calls, d.drawCall())
	}
	d.callIDsPerAnswer = d.callIDsPerAnswer || d.onAt(callIDReuseAt)
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
		hint := float64(d.between(1, max(maxDelay-1, 1)))
		if maxDelay >= 2 {
			hint += float64(d.rng.Intn(4)) / 4 // a Retry-After is used as given, fractions too
		}
		return d.failure(fault, 0, rateLimit(hint))
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
	case ProviderNilStream:
		return Answer{Fault: fault, ChunkDelayMs: d.between(10, 300), NilStream: true}
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

// drawCall draws one tool call and how its tool behaves, and lists the faults that shaped it.
func (d *drawer) drawCall() Call {
	c := Call{LatencyMs: d.between(1, 50), Outcome: OutcomeOK}
	var shaped []string
	switch {
	case d.onAt(toolUnknownAt):
		c.Name = UnknownTool
		shaped = append(shaped, ToolUnknown)
	case d.rng.Float64() < 0.7:
		c.Name = ParallelTools[d.rng.Intn(len(ParallelTools))]
	default:
		c.Name = ExclusiveTools[d.rng.Intn(len(ExclusiveTools))]
	}
	if d.onAt(toolLongLatencyAt) {
		c.LatencyMs = d.between(2_000, 30_000)
		shaped = append(shaped, ToolLongLatency)
	} else if d.onAt(toolLatencyAt) {
		c.LatencyMs = d.between(10, 800)
		shaped = append(shaped, ToolLatency)
	}
	if d.onAt(toolPanicAt) {
		c.Outcome = OutcomePanic
		shaped = append(shaped, ToolPanic)
	} else if d.onAt(toolErrorAt) {
		c.Outcome = OutcomeError
		shaped = append(shaped, ToolError)
	} else if d.onAt(toolGoexitAt) {
		c.Outcome = OutcomeGoexit
		shaped = append(shaped, ToolGoexit)
	} else if d.onAt(toolFailureAt) {
		c.Outcome, c.Wrap = OutcomeFailure, d.toolFailureWrap()
		shaped = append(shaped, ToolFailure)
	}
	if d.onAt(toolIgnoresCancelAt) {
		// It runs long enough for a cancel to land in it: ignoring a cancel needs one to ignore.
		c.IgnoreCancel = true
		c.LatencyMs = max(c.LatencyMs, d.between(500, 5_000))
		shaped = append(shaped, ToolIgnoresCancel)
	}
	c.Faults = shaped
	return c
}

// occurrences is how many times the fault at catalogue position at occurs in a plan: none when
// it is off, else 1 and more with its rate (scale: how many more at the highest).
func (d *drawer) occurrences(at int, scale float64) int {
	if !d.rates.on[at] {
		return 0
	}
	return 1 + int(d.rng.Float64()*d.rates.rate[at]*scale)
}

// earlyMs is a time in the first half of a plan of horizonMs: an aimed action armed then still has
// its moment to come.
func (d *drawer) earlyMs(horizonMs int64) int64 { return d.between(0, max(horizonMs/2, 1)-1) }

// powerLossAfterCutBack is the crash that fails a sync (the store cuts its line back) and takes
// the power with it, armed at a time from at (drawn after which unsynced bytes the loss takes).
func (d *drawer) powerLossAfterCutBack(at func() int64) Action {
	unsynced := []string{UnsyncedDropped, UnsyncedTorn}[d.rng.Intn(2)]
	return Action{AtMs: at(), Kind: ActCrash, FailSync: true, Unsynced: unsynced, RestartAfterMs: d.between(0, 2000), Fault: PowerLossAfterCutBack}
}

// drawActions scripts the user and host: the first followup at 0, the user-group faults at
// random times before the horizon, and a few WhenIdle watchers, in time order (stably: actions
// of the same instant in the order they were drawn).
func (d *drawer) drawActions(horizonMs int64) []Action {
	actions := make([]Action, 1, actionsUsual)
	actions[0] = Action{AtMs: 0, Kind: ActFollowup, Text: "task 1"}
	at := func() int64 { return d.between(0, horizonMs-1) }
	count := func(at int) int { return d.occurrences(at, 8) } // 1 to 4 at the highest rates
	sends := 1
	for _, s := range []struct {
		fault, kind string
		at          int
		text        sendKind
	}{{Followup, ActFollowup, followupAt, sendFollowup}, {Steer, ActSteer, steerAt, sendSteer}, {Inject, ActInject, injectAt, sendInject}} {
		for range count(s.at) {
			sends++
			actions = append(actions, Action{AtMs: at(), Kind: s.kind, Text: sendText(s.text, sends), Fault: s.fault})
		}
	}
	for _, c := range []struct {
		fault, cause string
		at           int
	}{{CancelUser, harness.CauseUser, cancelUserAt}, {CancelParent, harness.CauseParent, cancelParentAt}, {CancelHook, harness.CauseHook, cancelHookAt}} {
		for range count(c.at) {
			a := Action{AtMs: at(), Kind: ActCancel, Cause: c.cause, KeepInbox: d.rng.Float64() < 0.5, Fault: c.fault}
			if c.cause == harness.CauseHook {
				a.Reason = "budget hook"
			}
			actions = append(actions, a)
		}
	}
	if d.hasAt(disposeAt) {
		a := Action{AtMs: at(), Kind: ActDispose, Fault: Dispose}
		if d.rng.Float64() < 0.5 {
			// The other way to dispose: Cancel with cause disposed, which also clears the inbox
			// unless keepInbox.
			a.Kind, a.Cause, a.KeepInbox = ActCancel, harness.CauseDisposed, d.rng.Float64() < 0.5
		}
		actions = append(actions, a)
	}
	if d.hasAt(pluginEndAt) {
		actions = append(actions, Action{AtMs: at(), Kind: ActPluginEnd, Fault: PluginEnd})
	} else if d.hasAt(slowCompactionAt) && d.rng.Float64() < 0.5 {
		// a handler that deliberates is what a disposal can land on: bring the two together
		actions = append(actions, Action{AtMs: at(), Kind: ActPluginEnd, Fault: PluginEnd})
	}
	crashes, tears, powerLosses := d.hasAt(crashAt), d.hasAt(tornWriteAt), d.hasAt(powerLossAt)
	if crashes || tears || powerLosses {
		for range d.between(1, 3) {
			a := Action{AtMs: at(), Kind: ActCrash, RestartAfterMs: d.between(0, 2000), Fault: Crash}
			switch {
			case d.onAt(tornWriteAt):
				a.InAppend, a.Written, a.Fault = true, WrittenTorn, TornWrite
			case d.onAt(powerLossAt):
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
	for range count(observerCallbackAt) {
		a := Action{AtMs: at(), Kind: ActObserver, On: ObservedTypes[d.rng.Intn(len(ObservedTypes))], Fault: ObserverCallback}
		switch d.rng.Intn(4) {
		case 0:
			sends++
			a.Then, a.Text = ActFollowup, sendText(sendObserverFollowup, sends)
		case 1:
			sends++
			a.Then, a.Text = ActSteer, sendText(sendObserverSteer, sends)
		case 2:
			a.Then, a.Cause, a.KeepInbox = ActCancel, harness.CauseUser, d.rng.Float64() < 0.5
		default:
			a.Then = ThenPanic
		}
		actions = append(actions, a)
	}
	for range count(sendCancelRaceAt) {
		atMs := at()
		sends++
		which := d.rng.Intn(2)
		kind, text := []string{ActSteer, ActFollowup}[which], []sendKind{sendRacingSteer, sendRacingFollowup}[which]
		send := Action{AtMs: atMs, Kind: kind, Text: sendText(text, sends), Fault: SendCancelRace, Concurrent: true}
		cancel := Action{AtMs: atMs, Kind: ActCancel, Cause: harness.CauseUser, Fault: SendCancelRace, Concurrent: true}
		if d.rng.Float64() < 0.5 {
			send, cancel = cancel, send // the scheduler interleaves them either way; the order adds to it
		}
		actions = append(actions, send, cancel)
	}
	for range d.between(0, 2) {
		actions = append(actions, Action{AtMs: at(), Kind: ActWaitIdle})
	}
	for range count(maintenanceAt) {
		actions = append(actions, Action{AtMs: at(), Kind: ActMaintain, DurationMs: d.between(50, 5_000), Fault: Maintenance})
	}
	actions = d.drawAimed(actions, horizonMs, &sends)
	return byTime(actions)
}

// byTime returns the actions stably sorted by time, in a slice of their number: the sort moves
// their indices, and each action is copied once, into its place.
func byTime(actions []Action) []Action {
	order := make([]int, len(actions))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(actions[a].AtMs, actions[b].AtMs) })
	sorted := make([]Action, len(actions))
	for i, j := range order {
		sorted[i] = actions[j]
	}
	return sorted
}
