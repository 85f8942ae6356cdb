package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/sim"
)

// defaultSeeds is what `simrun run` runs without -seeds: the default mix, large enough to reach
// every fault kind and every turn outcome, small enough to take seconds.
const defaultSeeds = 10000

// selection is the seed selection shared by run and repro: which seeds, which faults, which
// planted bug.
type selection struct {
	faults string
	plant  string
}

func (s *selection) register(fs *flag.FlagSet) {
	fs.StringVar(&s.faults, "faults", "", "restrict every seed's swarm to these faults (comma-separated; 'simrun faults' lists them)")
	fs.StringVar(&s.plant, "plant", "", "run in a simrun built with this mutant planted ('simrun plants' lists them)")
}

// apply parses the fault list and checks -plant names the mutant this build carries.
func (s *selection) apply() ([]string, error) {
	var allowed []string
	if s.faults != "" {
		var err error
		if allowed, err = faults.ParseList(s.faults); err != nil {
			return nil, err
		}
	}
	if err := setPlant(s.plant); err != nil {
		return nil, err
	}
	return allowed, nil
}

// describe names the selection's flags, for a corpus file's foundBy.
func (s *selection) describe() string {
	var parts []string
	if s.faults != "" {
		parts = append(parts, "-faults "+s.faults)
	}
	if s.plant != "" {
		parts = append(parts, "-plant "+s.plant)
	}
	return strings.Join(parts, " ")
}

// reproFileCommand is the command that replays a saved schedule under this selection.
func (s *selection) reproFileCommand(path string) string {
	if s.plant != "" {
		return self() + " repro -plant " + s.plant + " " + path
	}
	return self() + " repro " + path
}

// reproCommand is the one command that reproduces seed under this selection.
func (s *selection) reproCommand(seed int64) string {
	cmd := self() + " repro -seed " + fmt.Sprint(seed)
	if s.plant != "" {
		cmd += " -plant " + s.plant
	}
	if s.faults != "" {
		cmd += " -faults " + s.faults
	}
	return cmd
}

func runRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("run", "run [-seeds N] [-start S | -seed S] [-workers K] [-shard i/n] [-faults a,b] [-json] [-check-determinism]", stderr)
	seeds := fs.Int("seeds", defaultSeeds, "how many seeds to run")
	start := fs.Int64("start", 1, "the first seed")
	seed := fs.Int64("seed", 0, "run this one seed (instead of -seeds and -start)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "how many seeds run in parallel")
	shard := fs.String("shard", "", "run only this machine's share i/n of the seed range (for CI matrices)")
	asJSON := fs.Bool("json", false, "print the summary as one JSON object on stdout")
	determinism := fs.Bool("check-determinism", false, "run every seed twice and report any whose logs differ")
	shrinkTime := fs.Duration("shrink-time", defaultShrinkTime, "how long, in all, to minimise failures before keeping them (0: keep them as they are)")
	corpusDir := fs.String("corpus", "corpus", "save the minimised failure as a corpus file in this folder (\"\": do not)")
	progressFlag := fs.String("progress", "auto", "progress on stderr: auto (a bar on a terminal, a line every 10 s elsewhere, on runs that last), always, or never")
	var sel selection
	sel.register(fs)
	if code, ok := parseNoArguments(fs, args, stderr); !ok {
		return code
	}
	set := setFlags(fs)
	opts := sim.RunOptions{Start: *start, Count: *seeds, Workers: *workers, CheckDeterminism: *determinism}
	switch {
	case set["seed"] && (set["seeds"] || set["start"] || set["shard"]):
		return usageError(stderr, "-seed runs one seed: it does not go with -seeds, -start or -shard")
	case set["seed"]:
		opts.Start, opts.Count = *seed, 1
	case *seeds < 1:
		return usageError(stderr, "-seeds %d: need at least 1 seed", *seeds)
	}
	if *workers < 1 {
		return usageError(stderr, "-workers %d: need at least 1 worker", *workers)
	}
	if *shard != "" {
		var err error
		if opts.Shard, err = sim.ParseShard(*shard); err != nil {
			return usageError(stderr, "-shard: %v", err)
		}
	}
	if err := checkSeedRange(opts.Start, opts.Count, opts.Shard); err != nil {
		return usageError(stderr, "%v", err)
	}
	if opts.Selected() == 0 {
		return usageError(stderr, "-shard %s of %d seed(s) selects no seed: use fewer shards or more seeds", *shard, opts.Count)
	}
	if *shrinkTime < 0 {
		return usageError(stderr, "-shrink-time %v is negative (0 keeps failures as they are)", *shrinkTime)
	}
	mode, err := parseProgressMode(*progressFlag)
	if err != nil {
		return usageError(stderr, "%v", err)
	}
	if err := checkCorpusDir(*corpusDir); err != nil {
		return usageError(stderr, "-corpus: %v", err)
	}
	if opts.Faults, err = sel.apply(); err != nil {
		return usageError(stderr, "%v", err)
	}
	progress := newProgress(stderr, mode)
	opts.ProgressFailing = func(done, total, failing int) { progress.update(done, total, failing) }
	tuneCollector(opts.Workers)
	summary := sim.RunSeeds(opts)
	progress.finish()
	report := runReport{Summary: summary, DeterminismChecked: *determinism}
	if *asJSON {
		out, _ := json.Marshal(report)
		fmt.Fprintln(stdout, string(out))
	} else {
		printSummary(stdout, report)
	}
	if summary.Violations > 0 {
		printFailures(stderr, summary, &sel)
		keepFailures(stderr, summary, opts.Faults, *shrinkTime, *corpusDir, &sel)
		return exitViolation
	}
	return exitOK
}

// keptFailuresMax bounds how many failing seeds a run saves to the corpus.
const keptFailuresMax = 10

// keepFailures minimises the failing seeds, in order, for their first property, sharing one
// time budget (a seed reached after it is spent is kept as it is), and saves each to the corpus,
// so every failure comes back small and stays as a regression test.
func keepFailures(w io.Writer, s sim.Summary, allowed []string, budget time.Duration, corpusDir string, sel *selection) {
	deadline := time.Now().Add(budget)
	for i, failure := range s.Failures {
		if i == keptFailuresMax {
			fmt.Fprintf(w, "kept the first %d failing seeds; rerun the others with -seed\n", keptFailuresMax)
			return
		}
		property := failure.Violations[0].Property
		if property == sim.DeterminismProperty {
			continue // a nondeterministic seed cannot be shrunk, or kept, by re-running it
		}
		r := sim.Shrink(sim.NewSchedule(failure.Seed, allowed), property, time.Until(deadline))
		if r.Runs > 0 {
			fmt.Fprintf(w, "minimised seed %d for %s: size %d → %d in %d runs%s\n", failure.Seed, property, r.SizeBefore, r.SizeAfter, r.Runs, completeness(r))
		}
		if corpusDir == "" {
			continue
		}
		path, err := sim.SaveToCorpus(corpusDir, corpusEntry(r, failure.Seed, "simrun run "+sel.describe()))
		if err != nil {
			fmt.Fprintf(w, "simrun: could not save seed %d's schedule: %v\n", failure.Seed, err)
			return
		}
		fmt.Fprintf(w, "saved %s; reproduce: %s\n", path, sel.reproFileCommand(path))
	}
}

// runReport is the summary `simrun run` prints: the runner's, and what the command adds to it.
// Its JSON form is the runner's keys with these beside them (README lists them all).
type runReport struct {
	sim.Summary
	// DeterminismChecked says -check-determinism ran every seed twice; a seed whose two logs
	// differed is counted under the determinism property.
	DeterminismChecked bool `json:"determinismChecked"`
}

// printSummary writes the human form of the summary.
func printSummary(w io.Writer, r runReport) {
	s := r.Summary
	fmt.Fprintf(w, "seeds              %d (from %d, shard %s, %d worker%s)\n", s.Seeds, s.FirstSeed, s.Shard, s.Workers, plural(s.Workers))
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

func percent(n, of int) string {
	if of == 0 {
		return ""
	}
	return fmt.Sprintf("(%.1f%%)", 100*float64(n)/float64(of))
}

// failuresShownMax bounds how many failing seeds are spelled out; the summary counts them all.
const failuresShownMax = 10

// printFailures names each failing seed, its properties, and the command that reproduces it.
func printFailures(w io.Writer, s sim.Summary, sel *selection) {
	for i, f := range s.Failures {
		if i == failuresShownMax {
			fmt.Fprintf(w, "… and %d more failing seeds (see -json's failingSeeds)\n", len(s.Failures)-i)
			break
		}
		fmt.Fprintf(w, "FAIL seed %d\n", f.Seed)
		for _, v := range f.Violations {
			fmt.Fprintf(w, "  %s\n", v)
		}
		fmt.Fprintf(w, "  reproduce: %s\n", sel.reproCommand(f.Seed))
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
