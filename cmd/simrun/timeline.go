package main

import (
	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/sim/timeline"
)

// timelineRun is what repro -html draws of an outcome: its fields as timeline.Run names them,
// worded by sim's Describe, so the chart's tooltips and log read like repro's text timeline.
func timelineRun(o sim.Outcome) timeline.Run {
	r := timeline.Run{
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
