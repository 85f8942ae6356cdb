package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/sim"
)

// defaultSeeds is what `run` runs without -seeds: the default mix, large enough to reach every
// fault kind and every turn outcome, small enough to take seconds.
const defaultSeeds = 10000

// workersMax bounds -workers: the seeds are CPU-bound, so workers past the cores only add a
// world's memory each (about 1.5 MB; 100,000 workers took 1.3 GB and did not finish).
const workersMax = 256

// selection is the seed selection shared by run, repro, shrink and fuzz-policy: which faults,
// which planted mutant.
type selection struct {
	faults string
	plant  string
}

func (s *selection) register(fs *flag.FlagSet, name string) {
	fs.StringVar(&s.faults, "faults", "", "restrict every seed's swarm to these faults (comma-separated; '"+name+" faults' lists them)")
	s.registerPlant(fs, name)
}

func (s *selection) registerPlant(fs *flag.FlagSet, name string) {
	fs.StringVar(&s.plant, "plant", "", "run in a build of this command with this mutant planted ('"+name+" plants' lists them)")
}

// apply parses the fault list and checks -plant names the mutant this build carries.
func (s *selection) apply() ([]string, error) {
	var allowed []string
	if s.faults != "" {
		var err error
		if allowed, err = faults.ParseList(s.faults); err != nil {
			return nil, err
		}
		if err := sim.CheckFaults(allowed); err != nil { // a wire fault needs the wire (sim/wire) linked
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
func (c *cli) reproFileCommand(s *selection, path string) string {
	if s.plant != "" {
		return c.self + " repro -plant " + s.plant + " " + shellQuote(path)
	}
	return c.self + " repro " + shellQuote(path)
}

// reproCommand is the one command that reproduces seed under this selection.
func (c *cli) reproCommand(s *selection, seed int64) string {
	cmd := c.self + " repro -seed " + fmt.Sprint(seed)
	if s.plant != "" {
		cmd += " -plant " + s.plant
	}
	if s.faults != "" {
		cmd += " -faults " + s.faults
	}
	return cmd
}

func (c *cli) run(args []string) int {
	fs := c.flagSet("run", "run [-seeds N] [-start S | -seed S] [-workers K] [-shard i/n] [-faults a,b] [-json] [-check-determinism] [-corpus DIR] [-shrink-time D] [-progress auto|always|never] [-plant NAME]")
	seeds := fs.Int("seeds", defaultSeeds, "how many seeds to run")
	start := fs.Int64("start", 1, "the first seed")
	seed := fs.Int64("seed", 0, "run this one seed (instead of -seeds and -start)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), fmt.Sprintf("how many seeds run in parallel (1 to %d)", workersMax))
	shard := fs.String("shard", "", "run only this machine's share i/n of the seed range (for CI matrices)")
	asJSON := fs.Bool("json", false, "print the summary as one JSON object on stdout")
	determinism := fs.Bool("check-determinism", false, "run every seed twice and report any whose logs differ")
	shrinkTime := fs.Duration("shrink-time", defaultShrinkTime, "how long, in all, to minimise failures before keeping them (0: keep them as they are)")
	corpusDir := fs.String("corpus", "corpus", "save the minimised failures as corpus files in this folder (\"\": do not)")
	progressFlag := fs.String("progress", "auto", "progress on stderr: auto (a bar on a terminal, a line every 10 s elsewhere, on runs that last), always, or never")
	var sel selection
	sel.register(fs, c.name)
	if code, ok := c.parseNoArguments(fs, args); !ok {
		return code
	}
	set := setFlags(fs)
	opts := sim.RunOptions{Start: *start, Count: *seeds, Workers: *workers, CheckDeterminism: *determinism, Agent: c.opts.Agent}
	switch {
	case set["seed"] && (set["seeds"] || set["start"] || set["shard"]):
		return c.usageError("-seed runs one seed: it does not go with -seeds, -start or -shard")
	case set["seed"]:
		opts.Start, opts.Count = *seed, 1
	case *seeds < 1:
		return c.usageError("-seeds %d: need at least 1 seed", *seeds)
	}
	if *workers < 1 || *workers > workersMax {
		return c.usageError("-workers %d: need 1 to %d workers (seeds are CPU-bound: more workers than cores only add memory)", *workers, workersMax)
	}
	if *shard != "" {
		var err error
		if opts.Shard, err = sim.ParseShard(*shard); err != nil {
			return c.usageError("-shard: %v", err)
		}
	}
	if err := checkSeedRange(opts.Start, opts.Count, opts.Shard); err != nil {
		return c.usageError("%v", err)
	}
	if *shrinkTime < 0 {
		return c.usageError("-shrink-time %v is negative (0 keeps failures as they are)", *shrinkTime)
	}
	mode, err := parseProgressMode(*progressFlag)
	if err != nil {
		return c.usageError("%v", err)
	}
	if err := checkCorpusDir(*corpusDir); err != nil {
		return c.usageError("-corpus: %v", err)
	}
	if opts.Faults, err = sel.apply(); err != nil {
		return c.usageError("%v", err)
	}
	progress := newProgress(c.stderr, c.name, mode)
	opts.Progress = progress.update
	timed, tools := sim.TimeTools(opts.Agent)
	opts.Agent = timed
	tuneCollector(opts.Workers)
	// An interrupt (Ctrl-C, SIGTERM, SIGHUP) lets the seeds under way finish and the run say what
	// it found; a second one stops it at once.
	interrupt, release := interruptible()
	opts.Stop = interrupt
	summary := sim.RunSeeds(opts)
	release()
	progress.finish()
	report := runReport{Summary: summary, DeterminismChecked: *determinism, Faults: slices.Sorted(slices.Values(listOrEmpty(opts.Faults))), Plant: sel.plant}
	if *asJSON {
		out, err := json.Marshal(report)
		if err != nil {
			panic(c.name + ": invariant: a run's summary always encodes: " + err.Error())
		}
		fmt.Fprintln(c.stdout, string(out))
	} else {
		c.printSummary(report, "")
		c.printToolCoverage(tools)
	}
	for _, warning := range tools.Warnings() {
		fmt.Fprintf(c.stderr, "%s: warning: %s\n", c.name, warning)
	}
	// The signal decides, not the summary: one that came after the last seed was taken still
	// interrupts (no shrinking, no saving, the signal's exit).
	interrupted := interruptedBy.Load() != nil
	if summary.Violations > 0 {
		c.printFailures(summary, &sel)
		if !interrupted {
			c.keepFailures(summary, opts.Faults, *shrinkTime, *corpusDir, &sel)
		}
	}
	if interrupted {
		fmt.Fprintf(c.stderr, "%s: interrupted after %d of %d seeds: the summary is of those; no failure was shrunk or saved\n", c.name, summary.Seeds, opts.Selected())
		endInterrupted()
	}
	if summary.Violations > 0 {
		return exitViolation
	}
	return exitOK
}

// listOrEmpty is list, or an empty list for nil: the JSON summary says [] rather than null.
func listOrEmpty(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}
