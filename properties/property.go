package properties

import (
	"fmt"
	"slices"

	"github.com/turnsim/turnsim/harness"
)

// Property is one thing that must hold after every run.
type Property struct {
	Name string
	// Doc says what the property protects, in one line.
	Doc   string
	check func(x *index, v *violations)
}

// Violation is one way a run broke a property: which, what happened, and where (the event's
// seq, 0 when no single event is to blame; the virtual time, -1 when none applies).
type Violation struct {
	Property string `json:"property"`
	Message  string `json:"message"`
	Seq      int64  `json:"seq,omitempty"`
	AtMs     int64  `json:"atMs"`
}

func (v Violation) String() string {
	where := ""
	if v.Seq > 0 {
		where = fmt.Sprintf(" (event %d)", v.Seq)
	}
	if v.AtMs >= 0 {
		where += fmt.Sprintf(" at +%.3fs", float64(v.AtMs)/1000)
	}
	return v.Property + where + ": " + v.Message
}

// violations collects what one property finds, bounded so a badly broken run stays readable.
type violations struct {
	property string
	found    []Violation
}

const violationsPerPropertyMax = 20

func (v *violations) add(seq, atMs int64, format string, args ...any) {
	if len(v.found) < violationsPerPropertyMax {
		v.found = append(v.found, Violation{Property: v.property, Message: fmt.Sprintf(format, args...), Seq: seq, AtMs: atMs})
	}
}

// Catalogue returns every property in a stable order.
func Catalogue() []Property { return slices.Clone(catalogue) }

// Names returns every property name in catalogue order.
func Names() []string {
	names := make([]string, len(catalogue))
	for i, p := range catalogue {
		names[i] = p.Name
	}
	return names
}

// logOnly are the properties that need nothing but the log: CheckLog runs these.
var logOnly = map[string]bool{
	"log-replays": true, "turn-settled": true, "max-tokens-sticky": true, "max-tokens-commits-text": true, "tool-results-paired": true,
	"results-in-model-order": true, "no-truncated-calls": true, "retry-started-on-time": true,
	"delay-in-window": true, "retry-after-exact": true, "retry-id-continuity": true,
	"no-double-dispatch": true, "chain-budget": true,
}

// LogOnly reports whether the named property needs nothing but the log.
func LogOnly(name string) bool { return logOnly[name] }

// CheckLog checks a session log on its own, without a simulator trace (a log a production agent
// wrote, say): the invariant layer on replay, and every property that needs only the log. Each
// chain's policy is read from its policyKey when the key spells out the fields; chains under a
// user-named policy skip the delay checks.
func CheckLog(events []harness.Event, jsonl []byte) []Violation {
	return checkLog(events, jsonl, LogOptions{}, false).Violations
}

// LogOptions says how a log checked on its own was written.
type LogOptions struct {
	// LateMs is how late a timer may have fired (see Run.LateMs): 0 for a simulator's log.
	LateMs int64
}

// LogVerdict is what CheckLogWith finds.
type LogVerdict struct {
	Violations []Violation
	// NeedsRepair is the turn left open at the end of the log, 0 when none is: a process that
	// died mid-turn leaves one, and crash repair closes it (interrupted) when the agent next
	// opens the log. It is no violation: the log is the truth up to the crash.
	NeedsRepair int
}

// CheckLogWith is CheckLog with options, and it tells an open last turn (a crash's, which
// needs repair) apart from a violation of turn-settled.
func CheckLogWith(events []harness.Event, jsonl []byte, opts LogOptions) LogVerdict {
	return checkLog(events, jsonl, opts, true)
}

func checkLog(events []harness.Event, jsonl []byte, opts LogOptions, splitRepair bool) LogVerdict {
	r := &Run{Log: events, JSONL: jsonl, Trace: Trace{IdleAtMs: -1}, LateMs: opts.LateMs}
	x := newIndex(r)
	var verdict LogVerdict
	if n := len(x.turnList); n > 0 {
		if last := x.turnList[n-1]; last.end == nil && splitRepair {
			verdict.NeedsRepair = last.number
		}
	}
	for _, p := range catalogue {
		if !logOnly[p.Name] {
			continue
		}
		for _, found := range x.check([]Property{p}) {
			if p.Name == "turn-settled" && verdict.NeedsRepair > 0 && found.Seq == x.turns[verdict.NeedsRepair].startSeq {
				continue // the open last turn: reported as needing repair, not as a violation
			}
			verdict.Violations = append(verdict.Violations, found)
		}
	}
	return verdict
}

// Check runs every property on r and returns what they found, in catalogue order.
func Check(r *Run) []Violation {
	return newIndex(r).check(catalogue)
}

// check runs props on the index in order and returns what they found, in that order.
func (x *index) check(props []Property) []Violation {
	var all []Violation
	v := &violations{} // one collector, for each property in turn
	for _, p := range props {
		if p.check == nil {
			panic(fmt.Sprintf("properties: property %q was not made by Define", p.Name))
		}
		*v = violations{property: p.Name}
		p.check(x, v)
		all = append(all, v.found...)
	}
	return all
}
