package sim

// Generators for pgregory.net/rapid, so that a user's own test drives the simulator and gets
// rapid's shrinking and fail files:
//
//	rapid.Check(t, func(t *rapid.T) {
//		o := sim.RunSchedule(sim.ScheduleGen(nil).Draw(t, "schedule"))
//		if len(o.Violations) > 0 {
//			t.Fatalf("%v", o.Violations)
//		}
//	})
//
// faults.DrawPlan draws a plan from a math/rand source, which rapid cannot see into: a failing
// seed is all it could report. PlanGen draws the same kind of plan through rapid's own
// generators instead, one rapid draw per choice, so rapid records every choice and its shrinker
// can simplify each one. Two rules make the shrunk plan readable:
//   - every choice shrinks towards the simplest value: rapid shrinks integers towards the low end
//     of their range, booleans towards false and a choice among alternatives towards the first,
//     so counts, delays and latencies are drawn with the small end as the simple one, and
//     alternatives are listed simplest first (a clean answer before any fault, a fault switched
//     off before on);
//   - lists are drawn as a count and then that many items, so rapid can drop an item by lowering
//     the count and removing the item's draws together.

import (
	"fmt"
	"slices"
	"sort"

	"pgregory.net/rapid"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
)

// Bounds of a rapid-drawn plan. They are faults.DrawPlan's, except that lists start at zero: the
// provider answers cleanly once the plan's answers run out, and the user needs no action beyond
// the first followup, so an empty list is the simplest plan and shrinking must be able to reach
// it.
const (
	rapidAnswersMax       = 24 // DrawPlan: 4 to 24
	rapidExtraActionsMax  = 24 // DrawPlan: about 30 at the highest rates, at least the first followup
	rapidCallsPerAnswer   = 5  // DrawPlan: 1 to 5 calls in a tool-call answer
	rapidRefusalWindowMax = 2  // DrawPlan: 1 or 2 windows when append-refused is on
)

// Kinds of answer besides a provider fault: a clean answer is a completed text or, as DrawPlan's
// clean answers sometimes are, a request for tool calls.
const (
	answerCleanText      = "clean-text"
	answerCleanToolCalls = "clean-tool-calls"
)

// Kinds of crash action, one per way faults.DrawPlan crashes the agent.
const (
	crashAtPoint  = "crash"           // wherever the agent's tasks are parked
	crashInAppend = "crash-in-append" // inside an append, with none or all of the line written
	crashTorn     = "torn-write"      // inside an append, with half of the line written
	// crashPowerLoss is a crash (at a point or inside an append) that drops unsynced bytes.
	crashPowerLoss = "power-loss"
)

// PlanGen returns a rapid generator of fault plans restricted to the allowed faults (nil: the
// whole catalogue). It draws every field through rapid within faults.DrawPlan's ranges, so a
// plan that makes a property fail shrinks to one with fewer faults, fewer answers, actions and
// tool calls, clean answers where a fault does not matter, and shorter delays. Like DrawSwarm,
// it first switches each allowed fault on or off (swarm testing: a plan that leaves most faults
// out reaches the paths those faults would crowd out); shrinking switches faults off. rapid
// favours small and boundary values, so its plans put many actions at the same instant (often
// 0 ms): same-instant races that DrawPlan's uniform times almost never produce. Every plan it
// draws passes faults.Plan.Validate. It panics on a fault name the catalogue does not know,
// which is a mistake in the calling test.
func PlanGen(allowed []string) *rapid.Generator[faults.Plan] {
	ordered := catalogueOrder(allowed)
	return rapid.Custom(func(t *rapid.T) faults.Plan {
		d := &planDraw{t: t, on: map[string]bool{}}
		for _, name := range ordered {
			d.on[name] = rapid.Bool().Draw(t, "on "+name)
		}
		return d.plan()
	})
}

// ScheduleGen returns a rapid generator of schedules over PlanGen(allowed). The drawn Seed only
// feeds the scheduler's and the harness's random streams (the interleaving of tasks, the retry
// jitter, the retry ids): the plan is drawn by rapid, not from the seed, so `simrun repro -seed`
// does not rebuild it; save the schedule (MarshalIndent) and replay the file instead. The Swarm
// lists the faults the plan names, each at rate 1: the plan is explicit, so a rate would decide
// nothing, and the swarm says which faults the schedule exercises (as a drawn schedule's swarm
// does, where a fault may also be on and never strike).
func ScheduleGen(allowed []string) *rapid.Generator[Schedule] {
	plans := PlanGen(allowed)
	return rapid.Custom(func(t *rapid.T) Schedule {
		plan := plans.Draw(t, "plan")
		return Schedule{
			Version:  ScheduleVersion,
			Seed:     rapid.Int64().Draw(t, "seed"),
			Strategy: StrategyUniform,
			Swarm:    swarmOf(plan), // never nil: a clean plan round-trips as {} and not null
			Plan:     plan,
		}
	})
}

// catalogueOrder returns the allowed faults in catalogue order (all of them for nil), so the
// draws never depend on the order the caller listed them in.
func catalogueOrder(allowed []string) []string {
	for _, name := range allowed {
		if _, ok := faults.Lookup(name); !ok {
			panic(fmt.Sprintf("sim: PlanGen: unknown fault %q (known: %v)", name, faults.Names()))
		}
	}
	var ordered []string
	for _, name := range faults.Names() {
		if allowed == nil || slices.Contains(allowed, name) {
			ordered = append(ordered, name)
		}
	}
	return ordered
}

// planDraw holds what PlanGen needs while it draws one plan: the rapid T every choice goes
// through, the faults switched on, and the policy (fault shapes depend on its maxDelay).
type planDraw struct {
	t      *rapid.T
	on     map[string]bool
	policy harness.RetryPolicy
	// callIDsPerAnswer: call-id-reuse struck, and the provider numbers calls per answer from then on.
	callIDsPerAnswer bool
}

func (d *planDraw) between(label string, low, high int64) int64 {
	return rapid.Int64Range(low, high).Draw(d.t, label)
}

func (d *planDraw) count(label string, low, high int) int {
	return rapid.IntRange(low, high).Draw(d.t, label)
}

func (d *planDraw) coin(label string) bool { return rapid.Bool().Draw(d.t, label) }

// strikes reports whether fault strikes at this opportunity: it is on, and a coin says so.
// Shrinking turns the coin to false, so a fault that does not matter stops striking.
func (d *planDraw) strikes(fault string) bool { return d.on[fault] && d.coin(fault) }

func (d *planDraw) plan() faults.Plan {
	d.policy = drawRetryPolicy(d.t)
	plan := faults.Plan{
		Policy:               d.policy,
		MaxParallelToolCalls: d.count("maxParallelToolCalls", 1, 4),
		HorizonMs:            d.between("horizonMs", 5_000, 60_000),
	}
	if d.on[faults.ContextWindowExceeded] {
		plan.CompactionBudget = d.count("compactionBudget", 0, 2) // 0: no compaction handler
	}
	for range d.count("answers", 0, rapidAnswersMax) {
		plan.Answers = append(plan.Answers, d.answer())
	}
	plan.Actions = d.actions(plan.HorizonMs)
	if d.on[faults.AppendRefused] {
		for range d.count("refusal windows", 1, rapidRefusalWindowMax) {
			plan.Refusals = append(plan.Refusals, d.refusal(plan.HorizonMs))
		}
	}
	if d.on[faults.StoreOutage] {
		from := d.between("outage fromMs", 0, plan.HorizonMs-1)
		until := min(plan.HorizonMs, from+d.between("outage lengthMs", 5_000, plan.HorizonMs))
		kind := rapid.SampledFrom(faults.OutageTypes).Draw(d.t, "outage type")
		plan.Refusals = append(plan.Refusals, faults.Window{FromMs: from, UntilMs: until, Type: kind, Fault: faults.StoreOutage})
	}
	if d.on[faults.SlowCompaction] {
		plan.CompactionBudget = max(plan.CompactionBudget, d.count("slow compaction budget", 1, 2))
		plan.CompactionDelayMs = d.between("compactionDelayMs", 50, 5_000)
		plan.CompactionFailures = d.count("compactionFailures", 0, 2)
	}
	if d.on[faults.Preemption] {
		plan.PreemptRate = float64(d.count("preempt rate tenths", 1, 10)) / 10
	}
	plan.Actions, plan.Refusals = d.aimed(plan.Actions, plan.Refusals, plan.HorizonMs)
	if d.on[faults.CallIDReuse] && d.coin("call-id-reuse refuses a tool append") {
		// as DrawPlan: one tool/call or tool/result refused, so calls are left unanswered
		from := d.between("unanswered fromMs", 0, plan.HorizonMs-1)
		kind := rapid.SampledFrom([]string{harness.TypeToolCall, harness.TypeToolResult}).Draw(d.t, "unanswered type")
		plan.Refusals = append(plan.Refusals, faults.Window{FromMs: from, UntilMs: from + d.between("unanswered lengthMs", 1, 10_000), Type: kind, Count: 1, Fault: faults.CallIDReuse})
	}
	return plan
}

// drawRetryPolicy draws a valid retry policy in whole milliseconds, in faults.DrawPlan's ranges:
// normal mode (the simpler, first) with 1 to 4 retries or always mode, an initial delay of 50 ms
// to 1 s, a cap of 2 to 40 times that (at most 30 s), a jitter ratio in [0, 0.5] by hundredths.
func drawRetryPolicy(t *rapid.T) harness.RetryPolicy {
	p := faults.SpecRetryPolicy() // every field explicit, the retryable codes the spec's
	if rapid.Bool().Draw(t, "always mode") {
		p.Mode, p.MaxRetries = harness.ModeAlways, 0
	} else {
		p.MaxRetries = rapid.IntRange(1, 4).Draw(t, "maxRetries")
	}
	initialMs := rapid.Int64Range(50, 1000).Draw(t, "initialDelayMs")
	p.InitialDelayMs = float64(initialMs)
	p.MaxDelayMs = float64(min(initialMs*rapid.Int64Range(2, 40).Draw(t, "maxDelay factor"), 30_000))
	p.JitterRatio = float64(rapid.IntRange(0, 50).Draw(t, "jitter hundredths")) / 100
	return p
}

// answer draws one provider answer: clean, or shaped by one of the provider faults switched on.
func (d *planDraw) answer() faults.Answer {
	kinds := []string{answerCleanText, answerCleanToolCalls}
	for _, f := range faults.Catalogue() {
		if f.Group == faults.GroupProvider && d.on[f.Name] {
			kinds = append(kinds, f.Name)
		}
	}
	switch kind := rapid.SampledFrom(kinds).Draw(d.t, "answer"); kind {
	case answerCleanText:
		return d.textAnswer("", harness.FinishCompleted)
	case answerCleanToolCalls:
		return d.toolCallAnswer("")
	default:
		return d.shape(kind)
	}
}

func (d *planDraw) textAnswer(fault string, finish harness.Finish) faults.Answer {
	return faults.Answer{Fault: fault, Chunks: d.count("chunks", 1, 3), ChunkDelayMs: d.between("chunkDelayMs", 5, 200), Finish: finish}
}

func (d *planDraw) failure(fault string, chunks int, fail faults.Fail) faults.Answer {
	return faults.Answer{Fault: fault, Chunks: chunks, ChunkDelayMs: d.between("chunkDelayMs", 10, 300), Fail: &fail}
}

func (d *planDraw) toolCallAnswer(fault string) faults.Answer {
	a := faults.Answer{Fault: fault, Chunks: d.count("chunks", 0, 1), ChunkDelayMs: d.between("chunkDelayMs", 5, 100), Finish: harness.FinishToolCalls}
	for range d.count("calls", 1, rapidCallsPerAnswer) {
		a.Calls = append(a.Calls, d.call())
	}
	d.callIDsPerAnswer = d.callIDsPerAnswer || d.strikes(faults.CallIDReuse)
	a.CallIDsPerAnswer = d.callIDsPerAnswer
	return a
}

// shape draws an answer shaped by a provider fault, as faults.DrawPlan shapes it.
func (d *planDraw) shape(fault string) faults.Answer {
	maxDelayMs := int64(d.policy.MaxDelayMs)
	rateLimit := func(retryAfterMs float64) faults.Fail {
		return faults.Fail{Code: harness.CodeRateLimit, Message: "rate limited", Status: 429, RetryAfterMs: retryAfterMs}
	}
	switch fault {
	case faults.RateLimit:
		return d.failure(fault, 0, rateLimit(0))
	case faults.RateLimitAfterBelow:
		return d.failure(fault, 0, rateLimit(float64(d.between("retryAfterMs", 1, max(maxDelayMs-1, 1)))))
	case faults.RateLimitAfterEqual:
		return d.failure(fault, 0, rateLimit(d.policy.MaxDelayMs))
	case faults.RateLimitAfterAbove:
		return d.failure(fault, 0, rateLimit(float64(maxDelayMs+d.between("retryAfterMs over the cap", 1, 5*maxDelayMs))))
	case faults.RetryAfterInvalid:
		return d.failure(fault, 0, rateLimit(float64(-d.between("negative retryAfterMs", 0, 5000))))
	case faults.Server:
		status := rapid.SampledFrom([]int{500, 502, 503}).Draw(d.t, "status")
		return d.failure(fault, 0, faults.Fail{Code: harness.CodeServer, Message: "internal server error", Status: status})
	case faults.Timeout:
		return d.failure(fault, 0, faults.Fail{Code: harness.CodeTimeout, Message: "request timed out"})
	case faults.Transport:
		return d.failure(fault, 0, faults.Fail{Code: harness.CodeTransport, Message: "fetch failed", CauseChain: true})
	case faults.EmptyResponse:
		return faults.Answer{Fault: fault, ChunkDelayMs: d.between("chunkDelayMs", 10, 300), Finish: harness.FinishCompleted}
	case faults.ContextWindowExceeded:
		return d.failure(fault, 0, faults.Fail{Code: harness.CodeContextWindowExceeded, Message: "prompt is too long", Status: 400})
	case faults.PlainError:
		return d.failure(fault, 0, faults.Fail{Plain: true, Message: "decode response: unexpected EOF"})
	case faults.FailMidStream:
		code := rapid.SampledFrom([]string{harness.CodeServer, harness.CodeTransport, harness.CodeTimeout}).Draw(d.t, "code")
		chunks := d.count("chunks before the failure", 1, 3)
		return d.failure(fault, chunks, faults.Fail{Code: code, Message: "stream interrupted"})
	case faults.MaxTokens:
		a := d.textAnswer(fault, harness.FinishMaxTokens)
		if d.coin("truncated call") {
			a.Calls = []faults.Call{d.call()} // cut off by max-tokens: must never run
		}
		return a
	case faults.ToolCalls:
		return d.toolCallAnswer(fault)
	case faults.SlowStream:
		return faults.Answer{Fault: fault, Chunks: d.count("chunks", 1, 3), ChunkDelayMs: d.between("slow chunkDelayMs", 500, 5000), Finish: harness.FinishCompleted}
	case faults.WrappedFailure:
		fail := rapid.SampledFrom([]faults.Fail{
			{Code: harness.CodeRateLimit, Message: "rate limited", Status: 429},
			{Code: harness.CodeServer, Message: "bad gateway", Status: 502},
			{Code: harness.CodeTimeout, Message: "request timed out", Status: 408},
			{Code: harness.CodeContextWindowExceeded, Message: "prompt is too long", Status: 400},
		}).Draw(d.t, "wrapped failure")
		if fail.Code == harness.CodeRateLimit && d.coin("wrapped Retry-After") {
			fail.RetryAfterMs = float64(d.between("retryAfterMs", 1, max(maxDelayMs-1, 1)))
		}
		for range d.count("wrap layers", 1, 2) {
			fail.Wrap = append(fail.Wrap, rapid.SampledFrom([]string{faults.WrapErrorf, faults.WrapJoin}).Draw(d.t, "wrap"))
		}
		return d.failure(fault, d.count("chunks before the failure", 0, 2), fail)
	case faults.StreamIgnoresCancel:
		a := faults.Answer{Fault: fault, Chunks: d.count("chunks", 1, 3), ChunkDelayMs: d.between("ignoring chunkDelayMs", 100, 2000), Finish: harness.FinishCompleted, IgnoreCancel: true}
		if d.coin("ignoring stream with tool calls") {
			for range d.count("calls", 1, 3) {
				a.Calls = append(a.Calls, d.call())
			}
			a.Finish = harness.FinishToolCalls
		}
		return a
	case faults.ProviderGoexit:
		return faults.Answer{Fault: fault, Chunks: d.count("chunks before the goexit", 0, 2), ChunkDelayMs: d.between("chunkDelayMs", 10, 300), Goexit: true}
	case faults.ProviderNilStream:
		return faults.Answer{Fault: fault, ChunkDelayMs: d.between("chunkDelayMs", 10, 300), NilStream: true}
	case faults.CallIDReuse:
		d.callIDsPerAnswer = true // calls numbered from 1, in this answer and every later one
		return d.toolCallAnswer(fault)
	}
	panic(fmt.Sprintf("sim: invariant: PlanGen has no shape for provider fault %q", fault))
}

// call draws one tool call and how its tool behaves: a registered tool (parallel ones first),
// a short latency, success and honouring cancellation, unless a tool fault strikes.
func (d *planDraw) call() faults.Call {
	c := faults.Call{LatencyMs: d.between("latencyMs", 1, 50), Outcome: faults.OutcomeOK}
	if d.strikes(faults.ToolUnknown) {
		c.Name = faults.UnknownTool
		c.Faults = append(c.Faults, faults.ToolUnknown)
	} else {
		c.Name = rapid.SampledFrom(slices.Concat(faults.ParallelTools, faults.ExclusiveTools)).Draw(d.t, "tool")
	}
	switch {
	case d.strikes(faults.ToolLatency):
		c.LatencyMs = d.between("latencyMs", 10, 800)
		c.Faults = append(c.Faults, faults.ToolLatency)
	case d.strikes(faults.ToolLongLatency):
		c.LatencyMs = d.between("long latencyMs", 2_000, 30_000)
		c.Faults = append(c.Faults, faults.ToolLongLatency)
	}
	switch {
	case d.strikes(faults.ToolError):
		c.Outcome = faults.OutcomeError
		c.Faults = append(c.Faults, faults.ToolError)
	case d.strikes(faults.ToolPanic):
		c.Outcome = faults.OutcomePanic
		c.Faults = append(c.Faults, faults.ToolPanic)
	case d.strikes(faults.ToolGoexit):
		c.Outcome = faults.OutcomeGoexit
		c.Faults = append(c.Faults, faults.ToolGoexit)
	case d.strikes(faults.ToolFailure):
		c.Outcome = faults.OutcomeFailure
		c.Faults = append(c.Faults, faults.ToolFailure)
		for range d.count("toolFailureWrap", 0, 2) {
			c.Wrap = append(c.Wrap, rapid.SampledFrom([]string{faults.WrapErrorf, faults.WrapJoin}).Draw(d.t, "toolFailureLayer"))
		}
	}
	if d.strikes(faults.ToolIgnoresCancel) {
		c.IgnoreCancel = true
		c.Faults = append(c.Faults, faults.ToolIgnoresCancel)
	}
	return c
}

// actions draws the user's and host's script: the first followup at 0, as in every drawn plan,
// then actions of the kinds switched on (and WhenIdle watchers, which are no fault) at times
// before the horizon, in time order.
func (d *planDraw) actions(horizonMs int64) []faults.Action {
	kinds := []string{faults.ActWaitIdle}
	for _, f := range []string{faults.Followup, faults.Steer, faults.Inject, faults.CancelUser, faults.CancelParent, faults.CancelHook, faults.Dispose, faults.PluginEnd} {
		if d.on[f] {
			kinds = append(kinds, f)
		}
	}
	if d.on[faults.Crash] {
		kinds = append(kinds, crashAtPoint, crashInAppend)
	}
	if d.on[faults.TornWrite] {
		kinds = append(kinds, crashTorn)
	}
	if d.on[faults.ObserverCallback] {
		kinds = append(kinds, faults.ObserverCallback)
	}
	if d.on[faults.SendCancelRace] {
		kinds = append(kinds, faults.SendCancelRace)
	}
	if d.on[faults.PowerLoss] {
		kinds = append(kinds, crashPowerLoss)
	}
	if d.on[faults.Maintenance] {
		kinds = append(kinds, faults.Maintenance)
	}
	actions := []faults.Action{{AtMs: 0, Kind: faults.ActFollowup, Text: "task 1"}}
	for i := range d.count("extra actions", 0, rapidExtraActionsMax) {
		kind := rapid.SampledFrom(kinds).Draw(d.t, "action")
		a := faults.Action{AtMs: d.between("atMs", 0, horizonMs-1)}
		switch kind {
		case faults.ActWaitIdle:
			a.Kind = faults.ActWaitIdle
		case faults.Followup, faults.Steer, faults.Inject:
			a.Kind, a.Fault = kind, kind // these faults are named after their action kinds
			a.Text = fmt.Sprintf("%s %d", kind, i+2)
		case faults.CancelUser, faults.CancelParent, faults.CancelHook:
			a.Kind, a.Fault, a.KeepInbox = faults.ActCancel, kind, d.coin("keepInbox")
			a.Cause = map[string]string{faults.CancelUser: harness.CauseUser, faults.CancelParent: harness.CauseParent, faults.CancelHook: harness.CauseHook}[kind]
			if a.Cause == harness.CauseHook {
				a.Reason = "budget hook"
			}
		case faults.Dispose:
			a.Kind, a.Fault = faults.ActDispose, faults.Dispose
		case faults.Maintenance:
			a.Kind, a.Fault, a.DurationMs = faults.ActMaintain, faults.Maintenance, d.between("maintenance durationMs", 50, 5_000)
		case faults.PluginEnd:
			a.Kind, a.Fault = faults.ActPluginEnd, faults.PluginEnd
		case crashAtPoint:
			a.Kind, a.Fault = faults.ActCrash, faults.Crash
		case crashInAppend:
			written := rapid.SampledFrom([]string{faults.WrittenNone, faults.WrittenWhole}).Draw(d.t, "written")
			a.Kind, a.Fault, a.InAppend, a.Written = faults.ActCrash, faults.Crash, true, written
		case crashTorn:
			a.Kind, a.Fault, a.InAppend, a.Written = faults.ActCrash, faults.TornWrite, true, faults.WrittenTorn
		case faults.ObserverCallback:
			a.Kind, a.Fault = faults.ActObserver, faults.ObserverCallback
			a.On = rapid.SampledFrom(faults.ObservedTypes).Draw(d.t, "observed type")
			a.Then = rapid.SampledFrom([]string{faults.ActFollowup, faults.ActSteer, faults.ActCancel, faults.ThenPanic}).Draw(d.t, "observer then")
			switch a.Then {
			case faults.ActCancel:
				a.Cause, a.KeepInbox = harness.CauseUser, d.coin("observer keepInbox")
			case faults.ActFollowup, faults.ActSteer:
				a.Text = fmt.Sprintf("observer %s %d", a.Then, i+2)
			}
		case faults.SendCancelRace:
			// the send here, its cancel appended below: the pair shares one instant
			a.Kind, a.Fault, a.Concurrent = faults.ActSteer, faults.SendCancelRace, true
			a.Text = fmt.Sprintf("racing steer %d", i+2)
			actions = append(actions, faults.Action{AtMs: a.AtMs, Kind: faults.ActCancel, Cause: harness.CauseUser, Fault: faults.SendCancelRace, Concurrent: true})
		case crashPowerLoss:
			a.Kind, a.Fault = faults.ActCrash, faults.PowerLoss
			a.Unsynced = rapid.SampledFrom([]string{faults.UnsyncedDropped, faults.UnsyncedTorn}).Draw(d.t, "unsynced")
			if a.InAppend = d.coin("power loss in an append"); a.InAppend {
				a.Written = rapid.SampledFrom([]string{faults.WrittenNone, faults.WrittenWhole, faults.WrittenTorn}).Draw(d.t, "written")
			}
		}
		if a.Kind == faults.ActCrash {
			a.RestartAfterMs = d.between("restartAfterMs", 0, 2000)
		}
		actions = append(actions, a)
	}
	sort.SliceStable(actions, func(i, j int) bool { return actions[i].AtMs < actions[j].AtMs })
	return actions
}

// aimed draws the aimed faults switched on (faults/aim.go), one action each with what it needs,
// armed early, as faults.DrawPlan draws them.
func (d *planDraw) aimed(actions []faults.Action, refusals []faults.Window, horizonMs int64) ([]faults.Action, []faults.Window) {
	early := func() int64 { return d.between("aimed atMs", 0, max(horizonMs/2, 1)-1) }
	cancel := func(a faults.Action, thens ...string) faults.Action {
		a.Then = rapid.SampledFrom(thens).Draw(d.t, "aimed then")
		if a.Then == faults.ActCancel {
			a.Cause, a.KeepInbox = harness.CauseUser, d.coin("aimed keepInbox")
		}
		return a
	}
	if d.on[faults.CancelAtTimer] {
		timer := rapid.SampledFrom(faults.Timers).Draw(d.t, "aimed timer")
		actions = append(actions, cancel(faults.Action{AtMs: early(), Kind: faults.ActAtTimer, Timer: timer, Fault: faults.CancelAtTimer}, faults.ActCancel, faults.ActDispose, faults.ActPluginEnd))
	}
	if d.on[faults.CancelDuringTool] {
		a := faults.Action{AtMs: early(), Kind: faults.ActDuringTool, AfterMs: d.between("aimed afterMs", 0, 1000), Fault: faults.CancelDuringTool}
		actions = append(actions, cancel(a, faults.ActCancel, faults.ActDispose))
	}
	if d.on[faults.DisposeBetweenCheckAndWait] {
		a := faults.Action{AtMs: early(), Kind: faults.ActAtSite, Site: faults.SiteBeforeArmingWait, Fault: faults.DisposeBetweenCheckAndWait}
		actions = append(actions, cancel(a, faults.ActDispose, faults.ActPluginEnd, faults.ActCancel))
	}
	if d.on[faults.WakeDuringFailedTurn] {
		kind := rapid.SampledFrom([]string{harness.TypeStepStart, harness.TypeInboxClaim}).Draw(d.t, "aimed refusal")
		a := faults.Action{AtMs: early(), Kind: faults.ActAtSite, Site: faults.SiteDriverAfterTurn, AfterRefused: kind, Then: faults.ActFollowup, Text: "aimed send", Fault: faults.WakeDuringFailedTurn}
		actions = append(actions, a)
		refusals = append(refusals, faults.Window{FromMs: a.AtMs, UntilMs: horizonMs, Type: kind, Count: 1, Fault: faults.WakeDuringFailedTurn})
	}
	if d.on[faults.PowerLossAfterCutBack] {
		unsynced := rapid.SampledFrom([]string{faults.UnsyncedDropped, faults.UnsyncedTorn}).Draw(d.t, "aimed unsynced")
		actions = append(actions, faults.Action{AtMs: early(), Kind: faults.ActCrash, FailSync: true, Unsynced: unsynced, RestartAfterMs: d.between("restartAfterMs", 0, 2000), Fault: faults.PowerLossAfterCutBack})
	}
	sort.SliceStable(actions, func(i, j int) bool { return actions[i].AtMs < actions[j].AtMs })
	return actions, refusals
}

// refusal draws a window in which the store refuses appends: a short one refusing every append,
// or (the second alternative) a long one refusing one append of one type, which reaches the rare
// paths.
func (d *planDraw) refusal(horizonMs int64) faults.Window {
	from := d.between("refusal fromMs", 0, horizonMs-1)
	if !d.coin("targeted refusal") {
		return faults.Window{FromMs: from, UntilMs: from + d.between("refusal lengthMs", 1, 300)}
	}
	kind := rapid.SampledFrom(faults.RefusableTypes).Draw(d.t, "refused type")
	return faults.Window{FromMs: from, UntilMs: from + d.between("refusal lengthMs", 1, 10_000), Type: kind, Count: 1}
}
