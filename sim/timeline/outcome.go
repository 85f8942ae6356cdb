package timeline

import "github.com/turnsim/turnsim/sim"

// FromOutcome is what `simrun repro -html` draws of a simulated run: the outcome's fields as Run
// names them, worded by sim's Describe, so the chart's tooltips and log read like repro's text
// timeline. (Run itself names no sim type, so a run from elsewhere can be drawn too.)
func FromOutcome(o sim.Outcome) Run {
	r := Run{
		Seed:           o.Schedule.Seed,
		Strategy:       o.Schedule.Strategy,
		HorizonMs:      o.Schedule.Plan.HorizonMs,
		Log:            o.Log,
		Trace:          o.Trace,
		Violations:     o.Violations,
		Exercised:      o.Exercised,
		Outcomes:       o.Outcomes,
		Digest:         o.Digest,
		Describe:       sim.Describe,
		DescribeReason: sim.DescribeReason,
	}
	if o.Report != nil {
		r.VirtualElapsed = o.Report.VirtualElapsed
	}
	return r
}
