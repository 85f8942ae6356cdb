package faults

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"

	"github.com/turnsim/turnsim/harness"
)

// Aimed faults target a moment of the run rather than a time: a cancel while a particular tool
// runs, a disposal in the very instant a backoff runs out or between llm-retry's last check and
// its wait, a wake while a refused turn winds down, a power loss right after the file store cut
// a failed append back. A time drawn at random lands in such a window once in hundreds of seeds;
// an action armed at a time that waits for its moment lands there whenever the moment comes.
//
// The swarm draws them like every fault. A user aims one at every seed (Aim, ParseAim, Apply:
// sim.Agent.Aim), so that a narrow bug of their agent (one that needs a cancel while their
// refund tool runs, say) is found within the default seed count.

// Kinds of the aimed actions. Each is armed at AtMs and does Then at its moment, once.
const (
	// ActAtTimer lands in the instant the first timer of kind Timer started at or after AtMs
	// runs out.
	ActAtTimer = "at-timer"
	// ActDuringTool lands AfterMs into the first call of Tool that starts at or after AtMs.
	ActDuringTool = "during-tool"
	// ActAtSite lands at the first preemption point named Site the agent reaches at or after
	// AtMs (after a refusal of type AfterRefused, if set).
	ActAtSite = "at-site"
)

// Timers an at-timer action may land on.
const (
	// TimerBackoff is llm-retry's backoff wait.
	TimerBackoff = "backoff"
	// TimerTool is a simulated tool call's planned latency.
	TimerTool = "tool"
	// TimerChunk is the simulated provider's delay before a chunk.
	TimerChunk = "chunk"
)

// Timers lists the timers an at-timer action may land on.
var Timers = []string{TimerBackoff, TimerTool, TimerChunk}

// The harness's preemption points the aimed faults land at (harness.Preempter): the names are
// the harness's own, and a test in package sim checks that runs reach each.
const (
	// SiteBeforeArmingWait is llm-retry's point between its last disposed check (and its
	// llm/retry record) and the backoff wait it arms.
	SiteBeforeArmingWait = "llm-retry: before arming the wait"
	// SiteDriverAfterTurn is the driver's point after a turn, before it decides under its lock
	// whether to go on.
	SiteDriverAfterTurn = "driver: after turn, before lock"
	// SiteBeforeTurnStart is the driver's point after it decided to run a turn, before it
	// writes that turn's turn/start.
	SiteBeforeTurnStart = "driver: before turn/start"
)

// AimedSites are the preemption points an at-site action may name.
var AimedSites = []string{SiteBeforeArmingWait, SiteDriverAfterTurn, SiteBeforeTurnStart}

// OpeningTypes are the appends that, refused, fail a turn before its first claim: the ones a
// wake-during-failed-turn action waits for.
var OpeningTypes = []string{harness.TypeTurnStart, harness.TypeStepStart, harness.TypeInboxClaim}

// wakeAtFailedTurn is a wake-during-failed-turn action around a turn that the store fails
// before its first claim by refusing an append of type kind: the send lands as the turn winds
// down (at the driver's point after it, once the refusal came) or, if beforeStart, just before
// the turn writes its turn/start, after the driver decided to run it (then the send is the
// turn's own, and the failed turn must wait for a later wake).
func wakeAtFailedTurn(kind string, beforeStart bool) Action {
	if beforeStart {
		return Action{Kind: ActAtSite, Site: SiteBeforeTurnStart, Fault: WakeDuringFailedTurn}
	}
	return Action{Kind: ActAtSite, Site: SiteDriverAfterTurn, AfterRefused: kind, Fault: WakeDuringFailedTurn}
}

// validateAimed refuses an aimed action the world cannot play, naming the field.
func (a Action) validateAimed() error {
	switch a.Kind {
	case ActAtTimer:
		if !slices.Contains(Timers, a.Timer) {
			return fmt.Errorf("at-timer timer %q is not one of %v", a.Timer, Timers)
		}
		return a.validateThen(ActCancel, ActDispose, ActPluginEnd)
	case ActDuringTool:
		if a.AfterMs < 0 || a.AfterMs > DurationMsMax {
			return fmt.Errorf("during-tool afterMs %d is outside [0, %d]", a.AfterMs, DurationMsMax)
		}
		return a.validateThen(ActCancel, ActDispose)
	case ActAtSite:
		if !slices.Contains(AimedSites, a.Site) {
			return fmt.Errorf("at-site site %q is not one of %q", a.Site, AimedSites)
		}
		if a.AfterRefused != "" && !slices.Contains(OpeningTypes, a.AfterRefused) {
			return fmt.Errorf("at-site afterRefused %q is not one of %v", a.AfterRefused, OpeningTypes)
		}
		return a.validateThen(ActCancel, ActDispose, ActPluginEnd, ActFollowup, ActSteer)
	}
	return fmt.Errorf("kind %q is not an aimed action", a.Kind)
}

// validateThen refuses a Then outside allowed, and a cancel without a valid cause.
func (a Action) validateThen(allowed ...string) error {
	if !slices.Contains(allowed, a.Then) {
		return fmt.Errorf("%s then %q is not one of %v", a.Kind, a.Then, allowed)
	}
	if a.Then == ActCancel {
		return validCause(a.Cause)
	}
	return nil
}

// plannedToolNames are the simulated agent's tools, a cancel-during-tool action's choice.
var plannedToolNames = slices.Concat(ParallelTools, ExclusiveTools)

// drawAimed adds the swarm's aimed actions to actions (and the refusal windows they need to
// d.aimedRefusals), each armed early in the run, before the horizon's second half, so that its
// moment is still to come. sends counts the plan's sends, for the texts of its own.
func (d *drawer) drawAimed(actions []Action, horizonMs int64, sends *int) []Action {
	early := func() int64 { return d.earlyMs(horizonMs) }
	count := func(at int) int { return d.occurrences(at, 4) }
	for range count(cancelAtTimerAt) {
		a := Action{AtMs: early(), Kind: ActAtTimer, Timer: Timers[d.rng.Intn(len(Timers))], Fault: CancelAtTimer}
		actions = append(actions, d.aimedThen(a, ActCancel, ActCancel, ActDispose, ActPluginEnd))
	}
	for range count(cancelDuringToolAt) {
		a := Action{AtMs: early(), Kind: ActDuringTool, AfterMs: d.between(0, 1000), Fault: CancelDuringTool}
		if d.rng.Float64() < 0.5 {
			a.Tool = plannedToolNames[d.rng.Intn(len(plannedToolNames))]
		}
		actions = append(actions, d.aimedThen(a, ActCancel, ActCancel, ActCancel, ActDispose))
	}
	for range count(disposeBetweenCheckAndWaitAt) {
		a := Action{AtMs: early(), Kind: ActAtSite, Site: SiteBeforeArmingWait, Fault: DisposeBetweenCheckAndWait}
		actions = append(actions, d.aimedThen(a, ActDispose, ActPluginEnd, ActPluginEnd, ActCancel))
	}
	if d.hasAt(wakeDuringFailedTurnAt) {
		kind := OpeningTypes[d.rng.Intn(len(OpeningTypes))]
		a := wakeAtFailedTurn(kind, d.rng.Intn(2) == 0)
		a.AtMs = early()
		then := []string{ActFollowup, ActSteer}[d.rng.Intn(2)]
		*sends++
		a.Then, a.Text = then, sendText(sendAimed, *sends)
		actions = append(actions, a)
		d.aimedRefusals = append(d.aimedRefusals, Window{FromMs: a.AtMs, UntilMs: horizonMs, Type: kind, Count: 1, Fault: WakeDuringFailedTurn})
	}
	if d.onAt(powerLossAfterCutBackAt) { // at its rate: each makes its seed keep a durable log
		actions = append(actions, d.powerLossAfterCutBack(early))
	}
	return actions
}

// aimedThen draws what a lands with among thens (a cancel with its cause and keepInbox).
func (d *drawer) aimedThen(a Action, thens ...string) Action {
	a.Then = thens[d.rng.Intn(len(thens))]
	if a.Then == ActCancel {
		a.Cause = []string{harness.CauseUser, harness.CauseParent, harness.CauseHook}[d.rng.Intn(3)]
		a.KeepInbox = d.rng.Float64() < 0.5
		if a.Cause == harness.CauseHook {
			a.Reason = "budget hook"
		}
	}
	return a
}

// Aim is an aimed fault a user points at every seed: one of Aims, with its parameter (the tool
// of cancel-during-tool, the timer of cancel-at-timer), if any.
type Aim struct {
	Fault string
	Param string
}

// String is the aim as ParseAim reads it.
func (a Aim) String() string {
	if a.Param == "" {
		return a.Fault
	}
	return a.Fault + ":" + a.Param
}

// aimUsage is each aim as written, with what it does.
var aimUsage = []struct{ form, doc string }{
	{CancelDuringTool + "[:TOOL]", "a cancel while a call of TOOL (any tool without one) runs"},
	{CancelAtTimer + "[:backoff|tool|chunk]", "a cancel, dispose or plugin end in the instant a timer runs out"},
	{DisposeBetweenCheckAndWait, "a disposal between llm-retry's last disposed check and its backoff wait"},
	{WakeDuringFailedTurn, "a waking send while a turn refused before its first claim winds down, or as it opens"},
	{PowerLossAfterCutBack, "a power loss right after the file store cut a failed append back"},
	{Preemption, "every preemption point gives way to another runnable task"},
}

// AimsHelp lists the aims, one per line, as ParseAim's errors and a command's usage show them.
func AimsHelp() string {
	var b strings.Builder
	for _, u := range aimUsage {
		fmt.Fprintf(&b, "  %-44s %s\n", u.form, u.doc)
	}
	return b.String()
}

// ParseAim reads an aim ("cancel-during-tool:issue_refund"). An unknown aim, or a parameter it
// does not take, is an error that names it and lists the valid ones.
func ParseAim(s string) (Aim, error) {
	fault, param, _ := strings.Cut(strings.TrimSpace(s), ":")
	aim := Aim{Fault: fault, Param: param}
	switch fault {
	case CancelDuringTool:
		return aim, nil
	case CancelAtTimer:
		if param == "" || slices.Contains(Timers, param) {
			return aim, nil
		}
		return Aim{}, fmt.Errorf("faults: aim %q: timer %q is not one of %s", s, param, strings.Join(Timers, ", "))
	case DisposeBetweenCheckAndWait, WakeDuringFailedTurn, PowerLossAfterCutBack, Preemption:
		if param == "" {
			return aim, nil
		}
		return Aim{}, fmt.Errorf("faults: aim %q: %s takes no parameter", s, fault)
	}
	return Aim{}, fmt.Errorf("faults: aim %q is not one of these:\n%s", s, AimsHelp())
}

// Apply points the aim at plan: it adds the aim's actions (two, one armed at the start and one at
// a time drawn from rng, so that a moment that comes later is hit too) and what they need to
// find their moment (a refusal to fail a turn on, a retryable failure to wait on). rng is the
// seed's own stream for the aim, so the plan's other draws stay as they were.
func (a Aim) Apply(plan *Plan, rng *rand.Rand) {
	d := drawer{rng: rng}
	later := func() int64 { return d.earlyMs(plan.HorizonMs) }
	switch a.Fault {
	case Preemption:
		plan.PreemptRate = 1
	case CancelDuringTool:
		// Each cancel is followed, some time later, by the user asking again: what comes of a
		// call cancelled mid-way shows in the turn after it (a re-sent request, say).
		for i, at := range []int64{0, later()} {
			action := Action{AtMs: at, Kind: ActDuringTool, Tool: a.Param, AfterMs: d.between(0, 1000), Fault: CancelDuringTool}
			again := Action{AtMs: d.between(at, max(plan.HorizonMs, at+1)-1), Kind: ActFollowup, Text: sendText(sendAim, i+1)}
			plan.Actions = append(plan.Actions, d.aimedThen(action, ActCancel), again)
		}
		ensureToolCalls(plan, d)
	case CancelAtTimer:
		for _, at := range []int64{0, later()} {
			timer := a.Param
			if timer == "" {
				timer = Timers[d.rng.Intn(len(Timers))]
			}
			action := Action{AtMs: at, Kind: ActAtTimer, Timer: timer, Fault: CancelAtTimer}
			plan.Actions = append(plan.Actions, d.aimedThen(action, ActCancel, ActDispose, ActPluginEnd))
		}
		if a.Param == TimerBackoff || a.Param == "" {
			ensureRetryableFailure(plan)
		}
	case DisposeBetweenCheckAndWait:
		action := Action{AtMs: 0, Kind: ActAtSite, Site: SiteBeforeArmingWait, Fault: DisposeBetweenCheckAndWait}
		plan.Actions = append(plan.Actions, d.aimedThen(action, ActDispose, ActPluginEnd, ActCancel))
		ensureRetryableFailure(plan)
	case WakeDuringFailedTurn:
		kind := OpeningTypes[d.rng.Intn(len(OpeningTypes))]
		then := []string{ActFollowup, ActSteer}[d.rng.Intn(2)]
		action := wakeAtFailedTurn(kind, d.rng.Intn(2) == 0)
		action.Then, action.Text = then, sendText(sendAim, 1)
		plan.Actions = append(plan.Actions, action)
		plan.Refusals = append(plan.Refusals, Window{FromMs: 0, UntilMs: plan.HorizonMs, Type: kind, Count: 1, Fault: WakeDuringFailedTurn})
	case PowerLossAfterCutBack:
		plan.Actions = append(plan.Actions, d.powerLossAfterCutBack(later))
	default:
		panic(fmt.Sprintf("faults: invariant: aim %q was not parsed by ParseAim", a))
	}
	plan.Actions = byTime(plan.Actions)
}

// aimedToolCallsEvery is how often a cancel-during-tool aim makes an answer ask for a tool call:
// every third answer, so that there is a call for the cancel to land in and, some requests
// later, one to ask again.
const aimedToolCallsEvery = 3

// ensureToolCalls makes every aimedToolCallsEvery-th answer of the plan ask for one tool call
// (unless it asks for some already): calls for the aim to land in. The call is to an exclusive
// tool, which the world maps onto the user's tools like any planned call.
func ensureToolCalls(plan *Plan, d drawer) {
	for i := 0; i < len(plan.Answers); i += aimedToolCallsEvery {
		if a := &plan.Answers[i]; len(a.Calls) == 0 || a.Finish != harness.FinishToolCalls {
			*a = Answer{Chunks: int(d.between(0, 1)), ChunkDelayMs: d.between(5, 100), Finish: harness.FinishToolCalls,
				Calls: []Call{{Name: ExclusiveTools[0], LatencyMs: d.between(1, 50), Outcome: OutcomeOK}}}
		}
	}
}

// ensureRetryableFailure makes the plan's first answer a retryable failure, unless one of its
// answers fails retryably already: a backoff wait for the aim to land in.
func ensureRetryableFailure(plan *Plan) {
	for _, a := range plan.Answers {
		if a.Fail != nil && slices.Contains(plan.Policy.RetryableCodes, a.Fail.Code) {
			return
		}
	}
	if len(plan.Answers) == 0 {
		plan.Answers = append(plan.Answers, Answer{})
	}
	plan.Answers[0] = Answer{Fault: Server, ChunkDelayMs: 50, Fail: &Fail{Code: harness.CodeServer, Message: "internal server error", Status: 503}}
}
