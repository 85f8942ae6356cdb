package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/sim"
)

// run runs a seed range, prints the summary (or its JSON), and for each failing seed (the first
// ten) a repro line naming this binary; with -corpus, the failures are shrunk and saved there.
func (c *cli) run(args []string) int {
	fs := c.flagSet("run", "run [-seeds N] [-seed S] [-faults a,b] [-workers N] [-shard i/n] [-check-determinism] [-json] [-corpus DIR] [-shrink-budget D]")
	seeds := fs.Int("seeds", 1000, "how many seeds to run")
	start := fs.Int64("seed", 1, "the first seed")
	fs.Int64Var(start, "start", 1, "the first seed (as -seed; simrun's name for it)")
	faultNames := fs.String("faults", "", "restrict the swarm to these faults (comma-separated)")
	workers := fs.Int("workers", 0, "seeds run in parallel (0: GOMAXPROCS)")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	corpus := fs.String("corpus", "", "shrink each failing seed and save its schedule in DIR")
	budget := fs.Duration("shrink-budget", 30*time.Second, "wall time to spend shrinking, in all")
	fs.DurationVar(budget, "shrink-time", 30*time.Second, "as -shrink-budget (simrun's name for it)")
	shardFlag := fs.String("shard", "", "run only shard i of n of the range (i from 1), as simrun does")
	determinism := fs.Bool("check-determinism", false, "run every seed twice and report a seed whose two logs differ")
	positional, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(positional) > 0 {
		return c.usageError("run takes no arguments, got %q", strings.Join(positional, " "))
	}
	if *seeds < 1 {
		return c.usageError("-seeds must be at least 1, got %d", *seeds)
	}
	allowed, err := c.faults(*faultNames)
	if err != nil {
		return c.usageError("-faults: %v", err)
	}
	var shard sim.Shard
	if *shardFlag != "" {
		if shard, err = sim.ParseShard(*shardFlag); err != nil {
			return c.usageError("-shard: %v", err)
		}
	}
	s := sim.RunSeeds(sim.RunOptions{Start: *start, Count: *seeds, Workers: *workers, Faults: allowed, Shard: shard, CheckDeterminism: *determinism, Agent: c.opts.Agent})
	if *asJSON {
		data, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			panic(err)
		}
		fmt.Fprintln(c.stdout, string(data))
	} else {
		c.printSummary(s)
	}
	deadline := time.Now().Add(*budget)
	for i, f := range s.Failures {
		if i == 10 {
			fmt.Fprintf(c.stderr, "(%d more failing seeds)\n", len(s.Failures)-10)
			break
		}
		fmt.Fprintf(c.stderr, "seed %d: %s\n  reproduce: %s repro -seed %d%s\n", f.Seed, f.Violations[0], c.opts.Command, f.Seed, c.faultsFlag(allowed))
		if *corpus == "" || f.Violations[0].Property == sim.DeterminismProperty {
			continue
		}
		property := f.Violations[0].Property
		r := sim.ShrinkAgent(sim.NewSchedule(f.Seed, allowed), property, time.Until(deadline), c.opts.Agent)
		path, err := sim.SaveToCorpus(*corpus, sim.CorpusEntry{Format: sim.CorpusFormat, Version: sim.CorpusVersion, TurnsimVersion: sim.Version, Property: property, Seed: f.Seed, FoundBy: c.opts.Command + " run", SizeBefore: r.SizeBefore, SizeAfter: r.SizeAfter, Schedule: r.Schedule})
		if err != nil {
			return c.usageError("could not save seed %d's schedule: %v", f.Seed, err)
		}
		fmt.Fprintf(c.stderr, "  shrunk %d → %d, saved %s; reproduce: %s repro %s\n", r.SizeBefore, r.SizeAfter, path, c.opts.Command, filepath.ToSlash(path))
	}
	if s.FailingSeedCount > 0 {
		return exitViolation
	}
	return exitOK
}

func (c *cli) faultsFlag(allowed []string) string {
	if len(allowed) == 0 {
		return ""
	}
	return " -faults " + strings.Join(allowed, ",")
}

func (c *cli) printSummary(s sim.Summary) {
	w := c.stdout
	fmt.Fprintf(w, "seeds              %d (from %d, shard %s)\n", s.Seeds, s.FirstSeed, s.Shard)
	fmt.Fprintf(w, "violations         %d\n", s.Violations)
	for _, p := range c.propertyNames() {
		if n := s.ViolationsByProperty[p]; n > 0 {
			fmt.Fprintf(w, "  %-28s %d\n", p, n)
		}
	}
	fmt.Fprintf(w, "failing seeds      %d\n", s.FailingSeedCount)
	fmt.Fprintf(w, "faults exercised   %d of %d\n", len(s.FaultCoverage), len(faults.Names()))
	fmt.Fprintf(w, "schedules/s        %.0f\n", s.SchedulesPerSecond)
}
