package sim

import (
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
)

// ReplayOptions say how ReplayLog replays an incident.
type ReplayOptions struct {
	// Agent is the agent the schedule runs on: the user's current one (the zero Agent: turnsim's
	// own). Run on the code that wrote the incident, the replay should write its log again; run
	// on a fix, it answers whether the fix holds for the incident.
	Agent Agent
	// Search is how many seeds to try (default 1: the derived schedule's own): each orders what
	// the log leaves unordered (same-instant events, a draw the derivation could not pin) its own
	// way, and the first whose log matches the incident's is kept.
	Search int
	// LateMs is how far apart an incident's event and the replay's may be written (see
	// CompareLogs): a production log's timers fire late. Default DefaultLateMs; negative: 0.
	LateMs int64
}

// DefaultLateMs is how late a production log's timers may fire: simrun check's default.
const DefaultLateMs = 250

// ReplayResult is what replaying an incident found.
type ReplayResult struct {
	Derivation Derivation
	// Schedule is the schedule kept: the derived one, with the seed of the first run whose log
	// matched the incident's (the derived seed when none did); Outcome is its run.
	Schedule Schedule
	Outcome  Outcome
	// Mismatch is where the kept run's log parts from the incident's: nil when it matched.
	Mismatch *LogMismatch
	// Tried is how many seeds ran.
	Tried int
	// Incident is what the incident's log breaks on its own (the properties that need nothing
	// but the log, judged with LateMs): the property the incident broke, to shrink against.
	Incident []properties.Violation
}

// Matched reports whether the replay wrote the incident's log again.
func (r ReplayResult) Matched() bool { return r.Mismatch == nil }

// ReplayLog derives the schedule of an incident's log (events, as ReadSessionLog decoded them
// from jsonl; name names the file) and runs it on opts.Agent, searching seeds as opts says.
func ReplayLog(name string, events []harness.Event, jsonl []byte, opts ReplayOptions) (ReplayResult, error) {
	if opts.Search < 1 {
		opts.Search = 1
	}
	late := opts.LateMs
	if late == 0 {
		late = DefaultLateMs
	}
	late = max(late, 0)
	derivation, err := ScheduleFromLog(name, events)
	if err != nil {
		return ReplayResult{}, err
	}
	r := ReplayResult{Derivation: derivation}
	r.Incident = properties.CheckLogWith(events, jsonl, properties.LogOptions{LateMs: late}).Violations
	for i := range opts.Search {
		candidate := derivation.Schedule
		candidate.Seed += int64(i)
		out := RunScheduleAgent(candidate, opts.Agent)
		mismatch := CompareLogs(events, out.Log, late)
		r.Tried++
		if i == 0 || mismatch == nil {
			r.Schedule, r.Outcome, r.Mismatch = candidate, out, mismatch
		}
		if mismatch == nil {
			break
		}
	}
	return r, nil
}
