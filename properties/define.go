package properties

import "fmt"

// A user's own properties: the catalogue is turnsim's, but an agent built on the harness has
// promises of its own (a tool's result format, a fallback that must fire, a budget of its own).
// Define makes one from a name, a one-line doc and a check over the run; sim.CheckOptions and
// sim.RunOptions take them as Properties, and their violations are reported, summarised and
// shrunk exactly like the catalogue's.

// Reporter is what a user property's check reports through. Each report is one violation of the
// property; like the catalogue's, at most 20 are kept per property per run.
type Reporter struct {
	v *violations
}

// Errorf reports a violation: seq is the log event to blame (0: none in particular), atMs the
// virtual time in Unix milliseconds on the log's clock (-1: none applies).
func (r *Reporter) Errorf(seq, atMs int64, format string, args ...any) {
	r.v.add(seq, atMs, format, args...)
}

// Define makes a property from a user's check. The check sees the whole Run: the session log
// (Log, JSONL), the simulator's trace (Trace, when Traced) and the configuration the agent ran
// with. It must be a pure function of the run, so that a seed's verdict is reproducible, and
// must not keep r or anything in it after it returns. Define panics on an empty name or a nil
// check, and a name the catalogue already uses: those are programming errors, found at once.
func Define(name, doc string, check func(r *Run, report *Reporter)) Property {
	if name == "" || check == nil {
		panic("properties: Define needs a name and a check")
	}
	for _, p := range catalogue {
		if p.Name == name {
			panic(fmt.Sprintf("properties: Define: %q is already a catalogue property", name))
		}
	}
	return Property{Name: name, Doc: doc, check: func(x *index, v *violations) { check(x.run, &Reporter{v: v}) }}
}

// CheckWith runs every catalogue property and then extra (a user's own, from Define) on r, and
// returns what they found in that order.
func CheckWith(r *Run, extra []Property) []Violation {
	x := newIndex(r) // one index for both: the properties only read it
	return append(x.check(catalogue), x.check(extra)...)
}

// CheckOnly runs just props (made by Define, or taken from the Catalogue) on r: a user's own
// properties over a log checked on its own, say.
func CheckOnly(r *Run, props []Property) []Violation {
	return newIndex(r).check(props)
}
