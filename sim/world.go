package sim

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/eventjson"
	"github.com/turnsim/turnsim/internal/splitmix"
	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim/sched"
)

// livenessBoundMs is how long after the horizon the agent has to settle: long enough for the
// slowest planned work (five 30 s exclusive tool calls, a slow stream, a capped backoff) to drain.
const livenessBoundMs = 300_000

// virtualTimeMarginMs lets a run go on a little past the liveness deadline, so that a missed
// deadline is reported as a liveness violation and not as the scheduler's time limit.
const virtualTimeMarginMs = 60_000

// A run's budget of virtual events grows with its plan. Its events are the scheduler's handoffs
// and preemption points and the appends the store is asked for: whatever a livelock does, it does
// one of these over and over (yields, spawns, passes a check, appends a refused event), whether
// virtual time moves or not. The budget is what a livelocking seed costs, and it is counted, not
// timed, so the finding is the same on every machine: the scheduler's default of a million
// handoffs made such a seed seconds of wall time, and a livelock that kept appending made a log of
// tens of thousands of events for the properties to judge; with this it ends in milliseconds, as
// a run-completes violation of its first seed. Over seeds 1–10,000 a run took at most 564 virtual
// events, and 9.2 per unit of plan size (Size): 20 per unit over a floor of 1,000 leaves a wide
// margin.
const (
	eventsFloor       = 1_000
	eventsPerPlanUnit = 20
)

// taskLimit bounds a run's unfinished tasks: the world's own few, a watcher per action at most,
// and the calls of one answer (at most faults.CallsMax run at once: a step drains its calls before
// the next). More means a runaway spawner, whose every pick would scan them all.
func taskLimit(schedule Schedule) int {
	return 256 + len(schedule.Plan.Actions) + faults.CallsMax
}

// eventLimit is the most virtual events a run of schedule may take before it is reported as a
// livelock (a run-completes finding of kind event-limit): the scheduler's budget (MaxEvents).
func eventLimit(schedule Schedule) int {
	return eventsFloor + eventsPerPlanUnit*Size(schedule)
}

// countEvent counts an append the store is asked for against the scheduler's budget of virtual
// events, with its scheduling decisions and preemption points: past it, the run stops at the
// next yield or preemption point with an event-limit finding.
func (w *world) countEvent() {
	if w.scheduler != nil {
		w.scheduler.CountEvent("a store append")
	}
}

// wallTimeLimit is the wall time a run may take before the scheduler reports it: a backstop, like
// the watchdog's hang, for a run that is slow for a reason no count catches. It only reports.
const wallTimeLimit = 5 * time.Second

// Outcome is everything one schedule's run produced.
type Outcome struct {
	Schedule   Schedule
	Log        []harness.Event
	JSONL      []byte
	Trace      properties.Trace
	Violations []properties.Violation
	Report     *sched.RunReport
	// Digest is the SHA-256 of the JSON Lines log: equal logs, equal digests.
	Digest [sha256.Size]byte
	// Exercised lists the faults that actually struck, in catalogue order.
	Exercised []string
	// Outcomes lists the turn/end reason kinds the log holds, sorted, each once.
	Outcomes []string
}

// worldParts are a world and the tracer and provider it keeps for the whole run, allocated as
// one: they live and die together, and were three allocations. With them, room for the
// provider's first streams (every run makes a request), for turnsim's own tools and for the
// counts of a drawn plan's refusal windows (at most four), three more.
type worldParts struct {
	world    world
	tracer   tracer
	provider planProvider
	streams  [streamsBuffered]planStream
	tools    [plannedTools]harness.Tool
	refused  [4]int
}

// plannedTools is how many simulated tools turnsim registers: faults.ParallelTools and
// faults.ExclusiveTools (read, search and write). More would take an allocation of their own.
const plannedTools = 3

// incarnationParts are what an incarnation of the agent is built with and keeps for its life,
// allocated as one (startIncarnation): its store, its runtime (boxed into the harness's
// interface, an allocation of its own before), the harness's random source, a Random that
// reads and draws what faults.NewRand's *rand.Rand would, for none of its two allocations, and
// the plan's compaction handler, deliberating or not, with the list that holds it (three more).
type incarnationParts struct {
	store        simStore
	runtime      tracingRuntime
	random       splitmix.Random
	draws        drawRecorder
	compaction   harness.CompactionHandler
	deliberating deliberatingHandler
	handlers     [1]harness.RequestErrorHandler
}

// errLivenessDeadline ends the wait for the agent to settle.
var errLivenessDeadline = errors.New("sim: liveness deadline passed")

// RunSchedule plays one schedule in a fresh world on the deterministic scheduler and checks
// every property on the result. Worlds share nothing, so schedules may run in parallel.
func RunSchedule(schedule Schedule) Outcome { return RunScheduleWith(schedule, nil) }

// RunScheduleWith plays a schedule with a user's retry strategy in place of the plan's policy:
// newStrategy makes one for each incarnation of the agent (nil: the plan's policy). The
// properties about the seed's own formula step aside; every other one still holds, and the
// strategy must keep its own cap and budget.
func RunScheduleWith(schedule Schedule, newStrategy func() harness.RetryStrategy) Outcome {
	return RunScheduleAgent(schedule, Agent{NewStrategy: newStrategy})
}

// RunScheduleAgent plays a schedule with the user's agent (see Agent) in place of turnsim's
// own, and checks the catalogue and the agent's own properties. The agent must be valid (see
// Agent.Validate): one the harness refuses panics here, since no schedule can run it.
func RunScheduleAgent(schedule Schedule, agent Agent) Outcome {
	_, out := runWorld(schedule, agent)
	return out
}

// runWorld is RunScheduleWith, returning the world too, for tests to look inside (at its disk).
func runWorld(schedule Schedule, agent Agent) (*world, Outcome) {
	var out Outcome
	w := runWorldInto(schedule, agent, nil, &out)
	return w, out
}

// runWorldInto is runWorld taking its large buffers from s (nil: fresh ones) and putting the
// Outcome in out: an Outcome is large, and returned by value it was copied twice on its way to a
// sweep's scratch.
func runWorldInto(schedule Schedule, agent Agent, s *scratch, out *Outcome) *world {
	scheduler := s.takeScheduler(sched.Options{
		Seed:           deriveSeed(schedule.Seed, streamScheduler),
		MaxVirtualTime: ms(schedule.Plan.HorizonMs + livenessBoundMs + virtualTimeMarginMs),
		MaxEvents:      eventLimit(schedule),
		MaxTasks:       taskLimit(schedule),
		PCTDepth:       schedule.Depth,
		PreemptRate:    schedule.Plan.PreemptRate,
		MaxWall:        wallTimeLimit,
		Start:          schedule.start(),
	})
	w := newWorldWith(schedule, scheduler, scheduler, agent, s)
	if w.disk != nil {
		w.disk.spare = s.takeLog()
	}
	report := scheduler.Run("main", w.play)
	w.provider.releaseWire(hung(report))
	if report.PreemptedByRate > 0 {
		// The plan's PreemptRate made a task give way at a preemption point, the fault's aim (a
		// switch the uniform draw or PCT made would have come without it).
		w.tracer.strike(faults.Preemption)
	}
	s.settleTrace(w.tracer)
	if w.agent != nil && !w.down && !hung(report) {
		w.tracer.observedUp()
	}
	w.keepDurableAtEnd()
	w.tracer.trace.EndMs = report.VirtualElapsed.Milliseconds()
	for _, f := range report.Findings {
		w.tracer.trace.Findings = append(w.tracer.trace.Findings, f.String())
	}
	finishOutcome(w, report, out, s)
	return w
}

// finishOutcome encodes the log (into a buffer from s, nil: a new one), checks the properties
// and gathers coverage into out.
func finishOutcome(w *world, report *sched.RunReport, out *Outcome, s *scratch) {
	agent, t := w.agent, w.tracer
	strategy := strategyInfo(w.strategy())
	*out = Outcome{Schedule: w.schedule, Trace: t.trace, Report: report}
	if agent != nil {
		// The session's own log, without the copy Events makes: what
		// Log returns never changes, even if a hung task of the run appends after it.
		out.Log = agent.Session().Log()
	}
	out.JSONL = w.jsonl(out.Log, report, s)
	out.Digest = sha256.Sum256(out.JSONL)
	plan := &w.schedule.Plan // not a copy
	parallelTools, exclusiveTools := faults.ParallelTools, faults.ExclusiveTools
	if u := w.userTools; u != nil {
		parallelTools, exclusiveTools = u.parallel, u.exclusive
	}
	poolLimit := plan.MaxParallelToolCalls
	if w.user.MaxParallelToolCalls > 0 {
		poolLimit = w.user.MaxParallelToolCalls
	}
	out.Violations = properties.CheckWith(&properties.Run{
		Traced:               true,
		Log:                  out.Log,
		JSONL:                out.JSONL,
		Trace:                t.trace,
		Policy:               plan.Policy,
		Strategy:             strategy,
		MaxParallelToolCalls: poolLimit,
		ParallelTools:        parallelTools,
		ExclusiveTools:       exclusiveTools,
		CompactionBudget:     w.compactionBudget,
		StartMs:              t.start.UnixMilli(),
		HorizonMs:            plan.HorizonMs,
		LivenessBoundMs:      livenessBoundMs,
	}, w.user.Properties)
	if exercised := t.struck.len(); exercised > 0 {
		out.Exercised = t.struck.appendNames(make([]string, 0, exercised)) // one allocation, not one per doubling
	}
	// The kinds are gathered on the stack, then kept in one slice of their number: a log has
	// a few, and growing the slice took up to three allocations. Each is the run's own string
	// (ownKind): a sweep keeps them past the run, and a log a restart decoded shares the
	// simulated disk's bytes, which the next seed's run reuses.
	var room [8]string
	kinds := room[:0]
	for _, e := range out.Log {
		if end, ok := e.Data.(harness.TurnEnd); ok && !slices.Contains(kinds, end.Reason.Kind) {
			kinds = append(kinds, ownKind(end.Reason.Kind))
		}
	}
	if len(kinds) > 0 {
		slices.Sort(kinds)
		out.Outcomes = slices.Clone(kinds)
	}
}

// jsonl is the run's log as JSON Lines. When the plan keeps a durable log and the agent is up at
// the end, the real file store wrote every event the session holds to the simulated disk, with
// the same encoder, and nothing else: the file is the log's JSON Lines, so it is taken as it is
// instead of encoding the log a second time, and
// log-replays then reads back what was really written. Otherwise (no durable log, the agent
// down, or a hung task that may still be writing) the log is encoded.
func (w *world) jsonl(log []harness.Event, report *sched.RunReport, s *scratch) []byte {
	if w.disk != nil && !w.down && !hung(report) {
		written := w.disk.contents(sessionLogPath)
		return append(s.takeJSONL(len(written)), written...)
	}
	jsonl, err := eventjson.Append(s.takeJSONL(jsonlSize(log)), log)
	if err != nil {
		panic(fmt.Sprintf("sim: invariant: the session log does not encode: %v", err))
	}
	return jsonl
}

// faultNames is the fault catalogue's names, in its order (faults.Names, once), and faultIndex
// each name's place in it.
var (
	faultNames = faults.Names()
	faultIndex = func() map[string]int {
		index := make(map[string]int, len(faultNames))
		for i, name := range faultNames {
			index[name] = i
		}
		return index
	}()
)

// jsonlSize is room for a log's JSON Lines: a little more than the usual, so that it grows
// rarely.
func jsonlSize(log []harness.Event) int { return 192 * len(log) }

// VirtualDuration is how much virtual time the run covered.
func (o Outcome) VirtualDuration() time.Duration { return o.Report.VirtualElapsed }

// PlaySchedule plays a schedule on another runtime, in the calling goroutine: the production
// runtime inside a testing/synctest bubble, for instance, to compare its speed with the
// scheduler's. Only the scheduler makes a run reproducible; elsewhere the log may differ from
// run to run, and the properties are checked all the same. What needs the scheduler's one-task-
// at-a-time order to be traced faithfully is skipped there: crashes and power losses, observer
// callbacks and same-instant send/cancel races.
func PlaySchedule(schedule Schedule, rt harness.Runtime) Outcome {
	w := newWorld(schedule, rt, nil, Agent{})
	w.play()
	elapsed := w.tracer.elapsed()
	w.tracer.trace.EndMs = elapsed.Milliseconds()
	var out Outcome
	finishOutcome(w, &sched.RunReport{VirtualElapsed: elapsed}, &out, nil)
	return out
}

// ownKind is a turn end's kind in memory of its own: the harness's constant for a known kind, a
// copy of any other, never the decoded log's bytes.
func ownKind(kind string) string {
	switch kind {
	case harness.EndCompleted:
		return harness.EndCompleted
	case harness.EndMaxTokens:
		return harness.EndMaxTokens
	case harness.EndAborted:
		return harness.EndAborted
	case harness.EndError:
		return harness.EndError
	case harness.EndInterrupted:
		return harness.EndInterrupted
	}
	return strings.Clone(kind)
}
