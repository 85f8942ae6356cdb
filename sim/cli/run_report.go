package cli

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/sim"
)

// runReport is the summary `run` prints: the runner's, and what the command adds to it. Its JSON
// form is the runner's keys with these beside them (README lists them all); merge reads it back.
type runReport struct {
	sim.Summary
	// DeterminismChecked says -check-determinism ran every seed twice; a seed whose two logs
	// differed is counted under the determinism property.
	DeterminismChecked bool `json:"determinismChecked"`
	// Faults is the -faults restriction, sorted ([]: the whole catalogue), and Plant the -plant
	// mutant ("": none): shards that differ in either are not shards of one run.
	Faults []string `json:"faults"`
	Plant  string   `json:"plant"`
}

// printSummary writes the human form of the summary; workers, when not "", replaces the worker
// count (a merge's shards did not share one machine's workers).
func (c *cli) printSummary(r runReport, workers string) {
	w := c.stdout
	s := r.Summary
	if workers == "" {
		workers = fmt.Sprintf("%d worker%s", s.Workers, plural(s.Workers))
	}
	fmt.Fprintf(w, "seeds              %d (from %d, shard %s, %s)\n", s.Seeds, s.FirstSeed, s.Shard, workers)
	if len(r.Faults) > 0 {
		fmt.Fprintf(w, "faults             only %s\n", strings.Join(r.Faults, ", "))
	}
	if r.Plant != "" {
		fmt.Fprintf(w, "mutant             %s planted\n", r.Plant)
	}
	fmt.Fprintf(w, "violations         %d\n", s.Violations)
	if r.DeterminismChecked {
		differ := s.ViolationsByProperty[sim.DeterminismProperty]
		fmt.Fprintf(w, "determinism        checked: every seed ran twice; %d seed%s gave different logs\n", differ, plural(differ))
	}
	for _, name := range sortedKeys(s.ViolationsByProperty) {
		fmt.Fprintf(w, "  %-24s %d seeds\n", name, s.ViolationsByProperty[name])
	}
	fmt.Fprintf(w, "schedules/s        %.0f (%.0f per core)\n", s.SchedulesPerSecond, s.SchedulesPerSecondCore)
	fmt.Fprintf(w, "sim s / wall s     %.0f (%.0f simulated s in %.2f s)\n", s.SimSecondsPerWallSecond, s.SimSeconds, s.WallSeconds)
	fmt.Fprintf(w, "digest             %s\n", s.Digest)
	if len(s.SlowestSeeds) > 0 {
		fmt.Fprintln(w, "slowest seeds      (wall time, scheduler handoffs)")
		for _, slow := range s.SlowestSeeds {
			fmt.Fprintf(w, "  %-30d %8.1f ms %9d handoffs\n", slow.Seed, slow.WallMs, slow.Handoffs)
		}
	}
	fmt.Fprintln(w, "fault coverage     (seeds in which each fault struck)")
	for _, f := range faults.Catalogue() {
		fmt.Fprintf(w, "  %-30s %6d %s\n", f.Name, s.FaultCoverage[f.Name], percent(s.FaultCoverage[f.Name], s.Seeds))
	}
	fmt.Fprintln(w, "outcome coverage   (seeds with a turn ending so)")
	for _, kind := range []string{"completed", "max-tokens", "aborted", "error", "interrupted"} {
		fmt.Fprintf(w, "  %-30s %6d %s\n", kind, s.OutcomeCoverage[kind], percent(s.OutcomeCoverage[kind], s.Seeds))
	}
}

// printToolCoverage writes, for an agent with tools of its own, how often each ran and how.
func (c *cli) printToolCoverage(tools *sim.ToolTimes) {
	coverage := tools.Coverage()
	if len(coverage) == 0 {
		return
	}
	fmt.Fprintln(c.stdout, "tool coverage      (runs of each of the agent's tools, of them errors)")
	for _, t := range coverage {
		fmt.Fprintf(c.stdout, "  %-30s %6d runs, %d errors\n", t.Name, t.Runs, t.Errors)
	}
}

func percent(n, of int) string {
	if of == 0 {
		return ""
	}
	return fmt.Sprintf("(%.1f%%)", 100*float64(n)/float64(of))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// failuresShownMax bounds how many failing seeds are spelled out; the summary counts them all.
const failuresShownMax = 10

// printFailures names each failing seed, its properties, and the command that reproduces it.
func (c *cli) printFailures(s sim.Summary, sel *selection) {
	for i, f := range s.Failures {
		if i == failuresShownMax {
			fmt.Fprintf(c.stderr, "… and %d more failing seeds (see -json's failingSeeds)\n", len(s.Failures)-i)
			break
		}
		fmt.Fprintf(c.stderr, "FAIL seed %d\n", f.Seed)
		for _, v := range f.Violations {
			fmt.Fprintf(c.stderr, "  %s\n", v)
		}
		fmt.Fprintf(c.stderr, "  reproduce: %s\n", c.reproCommand(sel, f.Seed))
	}
}

// keptFailuresMax bounds how many failing seeds a run saves to the corpus.
const keptFailuresMax = 10

// keepFailures minimises the failing seeds, in order, for their first property, sharing one
// time budget (a seed reached after it is spent is kept as it is), and saves each to the corpus,
// so every failure comes back small and stays as a regression test.
func (c *cli) keepFailures(s sim.Summary, allowed []string, budget time.Duration, corpusDir string, sel *selection) {
	deadline := time.Now().Add(budget)
	for i, failure := range s.Failures {
		if i == keptFailuresMax {
			fmt.Fprintf(c.stderr, "kept the first %d failing seeds; rerun the others with -seed\n", keptFailuresMax)
			return
		}
		property := failure.Violations[0].Property
		if property == sim.DeterminismProperty {
			continue // a nondeterministic seed cannot be shrunk, or kept, by re-running it
		}
		r := sim.ShrinkAgent(c.opts.Agent.Schedule(failure.Seed, allowed), property, time.Until(deadline), c.opts.Agent)
		if r.Runs > 0 {
			fmt.Fprintf(c.stderr, "minimised seed %d for %s: size %d → %d in %d runs%s\n", failure.Seed, property, r.SizeBefore, r.SizeAfter, r.Runs, completeness(r))
		}
		if corpusDir == "" {
			continue
		}
		path, err := sim.SaveToCorpus(corpusDir, corpusEntry(r, failure.Seed, strings.TrimSpace(c.name+" run "+sel.describe())))
		if err != nil {
			fmt.Fprintf(c.stderr, "%s: could not save seed %d's schedule: %v\n", c.name, failure.Seed, err)
			return
		}
		fmt.Fprintf(c.stderr, "saved %s; reproduce: %s\n", path, c.reproFileCommand(sel, path))
	}
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
