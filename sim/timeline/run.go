package timeline

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"time"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
)

// Run is one played run as the chart draws it: what a sim.Outcome holds, named here field by
// field so that the renderer needs neither the world nor its schedules, and a run from any
// runtime (a production log with its trace) can be drawn too.
type Run struct {
	// Seed and Strategy head the page and its summary; Strategy may be empty.
	Seed     int64
	Strategy string
	// HorizonMs is when the plan's faults stop, drawn as a vertical line; 0 draws none.
	HorizonMs int64
	// Log is the session log, the chart's turns, steps and tool calls.
	Log []harness.Event
	// Trace is what the world observed beside the log: attempts, waits, crashes, restarts.
	Trace properties.Trace
	// Violations are drawn on their own lane and listed under the chart.
	Violations []properties.Violation
	// VirtualElapsed is how long the run went on, so the chart reaches its end even after the
	// last event.
	VirtualElapsed time.Duration
	// Exercised lists the faults that struck and Outcomes the turn/end reason kinds, for the
	// summary.
	Exercised []string
	Outcomes  []string
	// Digest is the SHA-256 of the run's JSON Lines log, shown so two runs can be compared.
	Digest [sha256.Size]byte
	// Describe renders one event for the turn bars' tooltips and the session log under the chart
	// (sim.Describe); nil writes each event's type alone.
	Describe func(harness.Event) string
	// DescribeReason renders how a turn ended, for its bar's label (sim.DescribeReason); nil
	// writes the reason's kind alone.
	DescribeReason func(harness.TurnEndReason) string
}

// describers returns Describe and DescribeReason, nil ones replaced by their bare fallbacks.
func (o Run) describers() (func(harness.Event) string, func(harness.TurnEndReason) string) {
	describe, describeReason := o.Describe, o.DescribeReason
	if describe == nil {
		describe = func(e harness.Event) string { return e.Type }
	}
	if describeReason == nil {
		describeReason = func(r harness.TurnEndReason) string { return r.Kind }
	}
	return describe, describeReason
}

// tlLogText is the session log as text, one event per line as "+virtual time  description",
// times measured from origin, as sim.Timeline writes it.
func tlLogText(log []harness.Event, origin int64, describe func(harness.Event) string) string {
	var b strings.Builder
	for _, e := range log {
		fmt.Fprintf(&b, "%9s  %s\n", "+"+tlAt(e.Time-origin), describe(e))
	}
	return b.String()
}
