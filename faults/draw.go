package faults

import (
	"cmp"
	"fmt"
	"math"
	"math/rand"
	"slices"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/internal/splitmix"
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
	switchedOn := drawSwarm(&source{rng: rng}, allowed, &rates)
	return rates.swarm(switchedOn)
}

// DrawSchedule is DrawSwarm and then DrawPlan from the same rng: the same draws, the same swarm
// and plan. It fills the drawer's table of rates as it draws the swarm; DrawPlan, given only the
// map, reads it back, about 3,000 instructions a plan.
func DrawSchedule(rng *rand.Rand, allowed []string) (Swarm, Plan) {
	return drawSchedule(source{rng: rng}, allowed)
}

// DrawScheduleSeeded is DrawSchedule(NewRand(seed), allowed): the same swarm and plan, drawn
// from SplitMix64 directly instead of through a *rand.Rand (see source), about a tenth faster.
// A schedule of sim draws with it.
func DrawScheduleSeeded(seed int64, allowed []string) (Swarm, Plan) {
	return drawSchedule(source{own: splitmix.New(seed)}, allowed)
}

// DrawPlanSeeded is the plan of DrawScheduleSeeded(seed, allowed), without its swarm: the same
// draws, the swarm kept only in the drawer's table. A caller that runs the plan and never reads
// the swarm (sim's RunSeed) spares making the map: about 1 KB, four allocations and 4,000
// instructions a plan.
func DrawPlanSeeded(seed int64, allowed []string) Plan {
	d := drawer{rng: source{own: splitmix.New(seed)}}
	drawSwarm(&d.rng, allowed, &d.rates)
	return d.drawPlan()
}

// drawSchedule is DrawSchedule from src.
func drawSchedule(src source, allowed []string) (Swarm, Plan) {
	d := drawer{rng: src}
	switchedOn := drawSwarm(&d.rng, allowed, &d.rates)
	return d.rates.swarm(switchedOn), d.drawPlan()
}

// drawSwarm is DrawSwarm into the table rates, empty before: each allowed fault switched on
// with probability one half, at least one. It returns how many it switched on. It works by
// catalogue position, which is the table's: finding each name's position again was about 800
// instructions a schedule. The map is made from the table (swarmRates.swarm), once its size is
// known.
func drawSwarm(rng *source, allowed []string, rates *swarmRates) (switchedOn int) {
	at := allPositions[:swarmFaults]
	if allowed != nil {
		at = make([]int, 0, len(catalogue))
		for i, f := range catalogue {
			if f.Group != GroupWire && slices.Contains(allowed, f.Name) {
				at = append(at, i)
			}
		}
	}
	if rng.rng == nil {
		// From the drawer's own SplitMix64 directly, its draws inlined (as in drawAnswer): a
		// call to source.Float64 for each was about 1,000 instructions a plan.
		own := &rng.own
		for _, i := range at {
			if own.Float64() < 0.5 {
				rates.on[i], rates.rate[i] = true, rateOf(own.Float64())
				switchedOn++
			}
		}
	} else {
		for _, i := range at {
			if rng.Float64() < 0.5 {
				rates.on[i], rates.rate[i] = true, drawRate(rng)
				switchedOn++
			}
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
func drawRate(rng *source) float64 { return rateOf(rng.Float64()) }

// rateOf is the rate drawRate draws from f, a draw in [0, 1).
func rateOf(f float64) float64 { return math.Round((0.05+0.45*f)*100) / 100 }

// drawer holds what DrawPlan needs while it draws.
type drawer struct {
	rng source
	// rates is the swarm as a table by catalogue position, for onAt and hasAt.
	rates  swarmRates
	policy harness.RetryPolicy
	// order is drawAnswer's shuffle of providerFaults, reused from answer to answer: an array
	// with room for every fault, on the stack with the drawer.
	order [faultCount]int
	// room is where the plan's actions, failures and tool calls are gathered (planRoom).
	room *planRoom
	// callFaults is room for the faults that shape the plan's tool calls (keepFaults), made as
	// it fills up.
	callFaults []string
	// callIDsPerAnswer: call-id-reuse struck an answer, and the provider numbers its calls per
	// answer from then on.
	callIDsPerAnswer bool
}

// perm is rng.Perm(n) into d.order, without a new slice: the same draws, the same
// permutation (math/rand's own algorithm, which Go 1 keeps as it is). Each step draws
// rng.Intn(i+1) by that algorithm too (Intn through Int31n): the draw modulo the bound, unless
// it lies past the bound's last whole run of values. (For a power of two Int31n masks, which
// for a draw in [0, 1<<31) is the same as the modulo, and no draw lies past the bound.) perm
// does it inline, 20 times an answer: rand.Intn's two calls and its checks were about 6,000
// instructions a plan, a drawer method of its own that divided to find the bound about 5,000.
//
// A bound's last partial run is shorter than the bound, and no bound is more than n: a draw
// below 1<<31 - n lies before every step's run, and only a draw in the top n values (about one
// in 100 million) goes on to intnRejecting. Looking each bound's run up in a table, with its
// checks, was about 2,800 instructions a plan.
func (d *drawer) perm(n int) []int {
	var m []int
	if n <= len(d.order) {
		m = d.order[:n]
	} else {
		m = make([]int, n)
	}
	partialRuns := uint32(1<<31) - uint32(n) // no step's partial run starts before it
	if d.rng.rng != nil {
		for place := range m {
			v := uint32(d.rng.rng.Int63() >> 32) // Int31: in [0, 1<<31)
			if v >= partialRuns {
				v = d.intnRejecting(uint32(place+1), v)
			}
			j := int(v) % (place + 1) // rand.Perm's inside-out shuffle: j's element moves to place, which j takes
			m[place] = m[j]
			m[j] = place
		}
		return m
	}
	// The drawer's own SplitMix64, copied to a local so that its state stays in a register and
	// its draw inlines: through source.Int63, a call a step, 280 times a plan, and with the
	// state in memory, a step was about 20 instructions more. Int63Next, not Int63, keeps it
	// there (a pointer method kept it in memory, a store and a load a step): together about 750
	// instructions a plan. The modulo is of ints, by place+1 of a range over m: the compiler
	// then knows the bound is positive and j below len(m), and drops the division's check for
	// zero and the swap's bounds checks (a uint32 bound kept the check for zero, three
	// instructions a step, about 580 a plan).
	own := d.rng.own
	for place := range m {
		var x int64
		own, x = own.Int63Next()
		v := uint32(x >> 32) // Int31: in [0, 1<<31)
		if v >= partialRuns {
			d.rng.own = own
			v = d.intnRejecting(uint32(place+1), v)
			own = d.rng.own
		}
		j := int(v) % (place + 1)
		m[place] = m[j]
		m[j] = place
	}
	d.rng.own = own
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

// onAt is on for the fault at catalogue position i: the table directly, not through rate (on is
// asked about 290 times a plan).
func (d *drawer) onAt(i int) bool { return d.rates.on[i] && d.rng.Float64() < d.rates.rate[i] }

func (d *drawer) between(low, high int64) int64 { return low + d.rng.Int63n(high-low+1) }

// DrawPlan turns a swarm into an explicit plan. Every draw comes from rng, in a fixed order.
func DrawPlan(rng *rand.Rand, swarm Swarm) Plan {
	d := drawer{rng: source{rng: rng}}
	d.rates.fill(swarm)
	return d.drawPlan()
}

// drawPlan is DrawPlan, once d holds the swarm and its table of rates. It draws in a room lent
// by planRooms, and gives it back once the plan holds nothing of it.
func (d *drawer) drawPlan() Plan {
	d.room = planRooms.Get().(*planRoom)
	plan := d.drawPlanIn()
	planRooms.Put(d.room)
	d.room = nil
	return plan
}

// drawPlanIn is drawPlan in the room d.room, whatever it holds.
func (d *drawer) drawPlanIn() Plan {
	d.room.failsUsed, d.room.callsUsed, d.room.callsFull = 0, 0, false
	rng := &d.rng
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
	d.keepFailsAndCalls(plan.Answers)
	plan.Actions = d.drawActions(plan.HorizonMs, &d.room.actions)
	// The refusal windows are gathered on the stack (a plan has at most four), then kept in one
	// slice of their number: growing plan.Refusals took up to three allocations.
	var windows [4]Window
	refusals := windows[:0]
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
	}
	if d.hasAt(callIDReuseAt) {
		refusals = append(refusals, d.unansweredCalls(plan.HorizonMs))
	}
	if len(refusals) > 0 {
		plan.Refusals = slices.Clone(refusals)
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
	order := d.perm(len(providerFaults))
	own := d.rng.rng == nil
	for _, i := range order {
		// By catalogue position (providerFaultIndex), not by name: on(fault) without finding
		// the name's position again, 20 times an answer. And onAt written out, its draw
		// included, from the drawer's own SplitMix64 directly when it has one: a call for the
		// draw each time was about 1,100 instructions a plan.
		if at := providerFaultIndex[i]; d.rates.on[at] {
			var f float64
			if own {
				f = d.rng.own.Float64()
			} else {
				f = d.rng.rng.Float64()
			}
			if f < d.rates.rate[at] {
				return d.shape(providerFaults[i])
			}
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
	return Answer{Fault: fault, Chunks: chunks, ChunkDelayMs: d.between(10, 300), Fail: d.newFail(fail)}
}

func (d *drawer) toolCallAnswer(fault string) Answer {
	a := Answer{Fault: fault, Chunks: int(d.between(0, 1)), ChunkDelayMs: d.between(5, 100), Finish: harness.FinishToolCalls}
	n := d.between(1, callsPerAnswerMax)
	a.Calls = d.newCalls(int(n))
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
			a.Calls = append(d.newCalls(1), d.drawCall()) // truncated: must never run
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

// drawCall draws one tool call and how its tool behaves. It asks about its faults by catalogue
// position (draw_rates.go), not by name: a plan draws about five calls, seven questions each.
func (d *drawer) drawCall() Call {
	c := Call{LatencyMs: d.between(1, 50), Outcome: OutcomeOK}
	var room [4]string // a call has at most four faults: one of each switch below
	shaped := room[:0]
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
	}
	if d.onAt(toolIgnoresCancelAt) {
		// It runs long enough for a cancel to land in it: ignoring a cancel needs one to ignore.
		c.IgnoreCancel = true
		c.LatencyMs = max(c.LatencyMs, d.between(500, 5_000))
		shaped = append(shaped, ToolIgnoresCancel)
	}
	c.Faults = d.keepFaults(shaped)
	return c
}

// keepFaults copies a call's faults into d.callFaults (nil if there are none): a plan's calls
// share one array of fault names instead of each call growing its own. Capacity as newCalls.
// A wrapped failure's layers are kept here too.
func (d *drawer) keepFaults(shaped []string) []string {
	n := len(shaped)
	if n == 0 {
		return nil
	}
	if len(d.callFaults) < n {
		d.callFaults = make([]string, max(n, callFaultsBuffered))
	}
	kept := d.callFaults[:n:n]
	d.callFaults = d.callFaults[n:]
	copy(kept, shaped)
	return kept
}

// callFaultsBuffered is how many fault names d.callFaults makes room for at a time.
const callFaultsBuffered = 8

// drawActions scripts the user and host: the first followup at 0, the user-group faults at
// random times before the horizon, and a few WhenIdle watchers. It gathers the actions in room
// (planRoom), whatever room holds, then sorts them into a slice of their exact number: an
// Action is 184 bytes, and a plan has about 12 of them (at most 28 in the first 20,000 seeds).
// More than the room holds spill to the heap, as append does.
func (d *drawer) drawActions(horizonMs int64, room *[actionsBuffered]Action) []Action {
	actions := append(room[:0], Action{AtMs: 0, Kind: ActFollowup, Text: "task 1"})
	at := func() int64 { return d.between(0, horizonMs-1) }
	// count scales the number of occurrences with the fault's rate: 1 to 4 at the highest rates.
	count := func(at int) int {
		if !d.rates.on[at] {
			return 0
		}
		return 1 + int(d.rng.Float64()*d.rates.rate[at]*8)
	}
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
		actions = append(actions, Action{AtMs: at(), Kind: ActDispose, Fault: Dispose})
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
	return sortedByTime(actions)
}

// sortedByTime returns a new slice of exactly the actions, stably sorted by AtMs. It sorts
// small keys and moves each Action once: sorting the Actions themselves moved 184 bytes a swap,
// about 8,000 instructions a plan. Each key is an action's time and its index in one integer,
// ordered as (time, index) pairs are: sorting them is the stable sort, its ties in the order the
// actions came, and one comparison decides (a pair of fields, swapped, was about 250
// instructions a plan more). A stable sort's result is one and the same whatever sorts it, so
// the order is the order slices.SortStableFunc gives the actions.
func sortedByTime(actions []Action) []Action {
	if len(actions) > actionsBuffered {
		return stablySortedByTime(actions)
	}
	var buf [actionsBuffered]uint64
	keys := buf[:len(actions)]
	for i := range actions { // by index: a range value would copy each 184-byte Action
		atMs := actions[i].AtMs
		if atMs < 0 || atMs > keyAtMsMax {
			return stablySortedByTime(actions) // a time no drawn plan has: no key holds it
		}
		keys[i] = uint64(atMs)<<keyIndexBits | uint64(i)
	}
	// an insertion sort: for a plan's few actions, cheaper than calling a comparison
	for i := 1; i < len(keys); i++ {
		key, j := keys[i], i
		for ; j > 0 && keys[j-1] > key; j-- {
			keys[j] = keys[j-1]
		}
		keys[j] = key
	}
	sorted := make([]Action, len(keys))
	for j, key := range keys {
		sorted[j] = actions[key&(1<<keyIndexBits-1)]
	}
	return sorted
}

// A sort key's low keyIndexBits bits are the action's index (below actionsBuffered), the bits
// above them its AtMs, at most keyAtMsMax.
const (
	keyIndexBits = 5
	keyAtMsMax   = 1<<(64-keyIndexBits) - 1
)

// A key indexes every action sortedByTime sorts by key: it does no more than actionsBuffered.
var _ [1<<keyIndexBits - actionsBuffered]struct{}

// stablySortedByTime is sortedByTime for more actions than a key can index, or times no key
// holds: a copy of the actions, sorted by slices.SortStableFunc.
func stablySortedByTime(actions []Action) []Action {
	sorted := slices.Clone(actions)
	slices.SortStableFunc(sorted, func(a, b Action) int { return cmp.Compare(a.AtMs, b.AtMs) })
	return sorted
}
