package providerdiff

import (
	"strings"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/sim"
)

// describeAll renders events without their times: real time is not reproducible, the story is.
// (The same helper as sim's production-scenario tests, which cannot be shared from a _test file.)
func describeAll(events []harness.Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = sim.Describe(e)
	}
	return out
}

// withoutDelays blanks the jittered delay of llm/retry lines, which differ between seeds.
func withoutDelays(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if j := strings.Index(l, " delay="); j >= 0 {
			l = l[:j]
		}
		out[i] = l
	}
	return out
}
