package sim

import (
	"cmp"
	"slices"
	"time"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
)

// Shrinking: a failing schedule is only half a bug report. Shrink makes it as small as it can
// while the same property still fails: fewer actions, answers, calls and refusals, clean answers
// where a fault does not matter, shorter delays, smaller numbers, a simpler seed. It is greedy
// (keep any change that still fails, repeat until nothing helps), tries candidates in a fixed
// order, and stops at its time budget with the smallest failing schedule found so far.

// ShrinkResult is what shrinking found.
type ShrinkResult struct {
	Schedule   Schedule
	Property   string
	SizeBefore int
	SizeAfter  int
	// Runs is how many candidate schedules were tried; Complete is whether shrinking ran until
	// no change helped (rather than running out of time).
	Runs     int
	Complete bool
}

// Size measures a schedule for shrinking: its actions, answers, tool calls, text chunks and
// refusal windows, so a smaller plan has a smaller size.
func Size(s Schedule) int {
	n := len(s.Plan.Actions) + len(s.Plan.Refusals)
	for _, a := range s.Plan.Answers {
		n += 1 + len(a.Calls) + a.Chunks
	}
	return n
}

// Fails reports whether running s breaks property.
func Fails(s Schedule, property string) bool { return FailsAgent(s, property, Agent{}) }

// FailsAgent reports whether running s with the user's agent breaks property (a catalogue
// property or one of the agent's own).
func FailsAgent(s Schedule, property string, agent Agent) bool {
	fails := false
	runForResult(s, agent, func(o *Outcome) {
		fails = slices.ContainsFunc(o.Violations, func(v properties.Violation) bool { return v.Property == property })
	})
	return fails
}

// Shrink minimises s while property still fails on it, for at most budget of wall time.
func Shrink(s Schedule, property string, budget time.Duration) ShrinkResult {
	return ShrinkAgent(s, property, budget, Agent{})
}

// ShrinkAgent minimises s while property still fails on it with the user's agent.
func ShrinkAgent(s Schedule, property string, budget time.Duration, agent Agent) ShrinkResult {
	r := shrinkWhile(s, func(c Schedule) bool { return FailsAgent(c, property, agent) }, budget)
	r.Property = property
	return r
}

// shrinkWhile minimises s while fails holds.
func shrinkWhile(s Schedule, fails func(Schedule) bool, budget time.Duration) ShrinkResult {
	r := ShrinkResult{Schedule: s, SizeBefore: Size(s)}
	deadline := time.Now().Add(budget)
	try := func(candidate Schedule) bool {
		if time.Now().After(deadline) || candidate.Validate() != nil {
			return false
		}
		r.Runs++
		if fails(candidate) {
			r.Schedule = candidate
			return true
		}
		return false
	}
	for progress := true; progress && time.Now().Before(deadline); {
		progress = false
		for _, pass := range shrinkPasses {
			for _, candidate := range pass(r.Schedule) {
				if try(candidate) {
					progress = true
					break // re-derive the candidates from the smaller schedule
				}
			}
		}
	}
	r.Complete = time.Now().Before(deadline)
	r.Schedule.Swarm = swarmOf(r.Schedule.Plan)
	r.SizeAfter = Size(r.Schedule)
	return r
}

// shrinkPasses propose smaller versions of a schedule, the most aggressive first.
var shrinkPasses = []func(Schedule) []Schedule{
	removeChunks(func(p *faults.Plan) *[]faults.Action { return &p.Actions }),
	removeChunks(func(p *faults.Plan) *[]faults.Answer { return &p.Answers }),
	removeChunks(func(p *faults.Plan) *[]faults.Window { return &p.Refusals }),
	cleanAnswers,
	fewerCalls,
	simplerActions,
	smallerNumbers,
	simplerSeed,
}

// removeChunks proposes the schedule without a chunk of a list: halves, then quarters, down to
// single elements (delta debugging's order).
func removeChunks[T any](list func(p *faults.Plan) *[]T) func(Schedule) []Schedule {
	return func(s Schedule) []Schedule {
		items := *list(&s.Plan)
		var out []Schedule
		for size := len(items) / 2; size >= 1; size /= 2 {
			for start := 0; start+size <= len(items); start += size {
				c := cloneSchedule(s)
				l := list(&c.Plan)
				*l = slices.Delete(slices.Clone(*l), start, start+size)
				out = append(out, c)
			}
		}
		if len(items) == 1 {
			c := cloneSchedule(s)
			*list(&c.Plan) = nil
			out = append(out, c)
		}
		return out
	}
}

// cleanAnswers proposes each faulty answer made clean: one short completed text.
func cleanAnswers(s Schedule) []Schedule {
	var out []Schedule
	for i, a := range s.Plan.Answers {
		if a.Fault == "" && a.Fail == nil && len(a.Calls) == 0 && a.Chunks <= 1 {
			continue
		}
		c := cloneSchedule(s)
		c.Plan.Answers[i] = faults.Answer{Chunks: 1, ChunkDelayMs: min(a.ChunkDelayMs, 10), Finish: harness.FinishCompleted}
		out = append(out, c)
	}
	return out
}

// fewerCalls proposes answers with one tool call or one chunk fewer, calls with simpler
// behaviour (no faults, minimal latency), and run-unique call ids.
func fewerCalls(s Schedule) []Schedule {
	var out []Schedule
	for i, a := range s.Plan.Answers {
		for j := range a.Calls {
			c := cloneSchedule(s)
			c.Plan.Answers[i].Calls = slices.Delete(c.Plan.Answers[i].Calls, j, j+1)
			if len(c.Plan.Answers[i].Calls) == 0 && c.Plan.Answers[i].Finish == harness.FinishToolCalls {
				c.Plan.Answers[i].Finish = harness.FinishCompleted
				c.Plan.Answers[i].Chunks = max(c.Plan.Answers[i].Chunks, 1)
			}
			out = append(out, c)
			if call := a.Calls[j]; call.LatencyMs > 1 || call.Outcome != faults.OutcomeOK || call.IgnoreCancel {
				c := cloneSchedule(s)
				c.Plan.Answers[i].Calls[j] = faults.Call{Name: call.Name, LatencyMs: 1, Outcome: faults.OutcomeOK}
				out = append(out, c)
			}
		}
		if a.Chunks > 1 || (a.Chunks == 1 && (a.Fail != nil || len(a.Calls) > 0)) {
			c := cloneSchedule(s)
			c.Plan.Answers[i].Chunks--
			out = append(out, c)
		}
		if a.ChunkDelayMs > 1 {
			c := cloneSchedule(s)
			c.Plan.Answers[i].ChunkDelayMs /= 2
			out = append(out, c)
		}
		if a.CallIDsPerAnswer {
			c := cloneSchedule(s)
			c.Plan.Answers[i].CallIDsPerAnswer = false // run-unique ids: call-id-reuse off
			out = append(out, c)
		}
	}
	return out
}

// simplerActions proposes actions earlier in time, without keepInbox, restarting at once.
func simplerActions(s Schedule) []Schedule {
	var out []Schedule
	for i, a := range s.Plan.Actions {
		if a.AtMs > 0 {
			c := cloneSchedule(s)
			c.Plan.Actions[i].AtMs /= 2
			sortActions(c.Plan.Actions)
			out = append(out, c)
		}
		// A hook's reason may go (a cancel's own, or an aimed action's that cancels), but no other:
		// a candidate equal to the schedule would always fail, and the shrinker never stop.
		hookReason := a.Reason != "" && a.Cause == harness.CauseHook && (a.Kind == faults.ActCancel || a.Then == faults.ActCancel)
		if a.KeepInbox || a.RestartAfterMs > 0 || hookReason {
			c := cloneSchedule(s)
			c.Plan.Actions[i].KeepInbox, c.Plan.Actions[i].RestartAfterMs = false, 0
			if hookReason {
				c.Plan.Actions[i].Reason = ""
			}
			out = append(out, c)
		}
		if a.AfterMs > 0 {
			c := cloneSchedule(s)
			c.Plan.Actions[i].AfterMs /= 2
			out = append(out, c)
		}
	}
	return out
}

// smallerNumbers proposes a shorter horizon, one parallel call at a time, fewer retries,
// shorter delays and a compaction handler that does not deliberate.
func smallerNumbers(s Schedule) []Schedule {
	var out []Schedule
	latest := int64(0)
	for _, a := range s.Plan.Actions {
		latest = max(latest, a.AtMs)
	}
	if h := max(latest, s.Plan.HorizonMs/2); h < s.Plan.HorizonMs {
		c := cloneSchedule(s)
		c.Plan.HorizonMs = h
		out = append(out, c)
	}
	if s.Plan.MaxParallelToolCalls > 1 {
		c := cloneSchedule(s)
		c.Plan.MaxParallelToolCalls = 1
		out = append(out, c)
	}
	if s.Plan.Policy.Mode == harness.ModeNormal && s.Plan.Policy.MaxRetries > 1 {
		c := cloneSchedule(s)
		c.Plan.Policy.MaxRetries--
		out = append(out, c)
	}
	if p := s.Plan.Policy; p.InitialDelayMs > 1 {
		c := cloneSchedule(s)
		c.Plan.Policy.InitialDelayMs = float64(int64(p.InitialDelayMs / 2))
		out = append(out, c)
	}
	if s.Plan.CompactionBudget > 1 {
		c := cloneSchedule(s)
		c.Plan.CompactionBudget = 1
		out = append(out, c)
	}
	if s.Plan.CompactionDelayMs > 0 {
		c := cloneSchedule(s)
		c.Plan.CompactionDelayMs, c.Plan.CompactionFailures = 0, 0 // a handler that decides at once: slow-compaction off
		out = append(out, c)
	}
	if s.Plan.CompactionFailures > 0 {
		c := cloneSchedule(s)
		c.Plan.CompactionFailures = 0
		out = append(out, c)
	}
	if s.Plan.PreemptRate > 0 {
		c := cloneSchedule(s)
		c.Plan.PreemptRate = 0 // preemption off
		out = append(out, c)
	}
	return out
}

// simplerSeed proposes the first few seeds: simpler scheduling choices to read.
func simplerSeed(s Schedule) []Schedule {
	var out []Schedule
	for seed := int64(0); seed < 4 && seed < s.Seed; seed++ {
		c := cloneSchedule(s)
		c.Seed = seed
		out = append(out, c)
	}
	return out
}

// swarmOf is the swarm a plan actually uses: every fault named in it, at rate 1.
func swarmOf(p faults.Plan) faults.Swarm {
	swarm := faults.Swarm{}
	for _, a := range p.Answers {
		if a.Fault != "" {
			swarm[a.Fault] = 1
		}
		if a.CallIDsPerAnswer {
			swarm[faults.CallIDReuse] = 1
		}
		for _, c := range a.Calls {
			for _, f := range c.Faults {
				swarm[f] = 1
			}
		}
	}
	for _, a := range p.Actions {
		if a.Fault != "" {
			swarm[a.Fault] = 1
		}
	}
	for _, w := range p.Refusals {
		swarm[cmp.Or(w.Fault, faults.AppendRefused)] = 1
	}
	if p.CompactionDelayMs > 0 {
		swarm[faults.SlowCompaction] = 1
	}
	if p.PreemptRate > 0 {
		swarm[faults.Preemption] = 1
	}
	return swarm
}

func sortActions(actions []faults.Action) {
	slices.SortStableFunc(actions, func(a, b faults.Action) int { return int(a.AtMs - b.AtMs) })
}

// cloneSchedule deep-copies the parts of a schedule shrinking changes.
func cloneSchedule(s Schedule) Schedule {
	c := s
	c.Plan.Actions = slices.Clone(s.Plan.Actions)
	c.Plan.Refusals = slices.Clone(s.Plan.Refusals)
	c.Plan.Answers = slices.Clone(s.Plan.Answers)
	for i := range c.Plan.Answers {
		c.Plan.Answers[i].Calls = slices.Clone(c.Plan.Answers[i].Calls)
		if f := c.Plan.Answers[i].Fail; f != nil {
			copied := *f
			c.Plan.Answers[i].Fail = &copied
		}
	}
	return c
}
