package cli

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/turnsim/turnsim/sim"
)

// scheduleFileBytesMax bounds a schedule file read: a schedule is kilobytes.
const scheduleFileBytesMax = 16 << 20

// repro re-runs one seed (-seed) or one schedule or corpus file: its timeline and violations.
func (c *cli) repro(args []string) int {
	fs := c.flagSet("repro", "repro (-seed S | SCHEDULE.json) [-faults a,b] [-log FILE]")
	seed := fs.Int64("seed", 0, "the seed to re-run")
	faultNames := fs.String("faults", "", "the -faults the seed was run with")
	logFile := fs.String("log", "", "write the run's JSON Lines session log to FILE")
	positional, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	seedSet := false
	fs.Visit(func(f *flag.Flag) { seedSet = seedSet || f.Name == "seed" })
	schedule, code, ok := c.schedule(seedSet, *seed, *faultNames, positional, "repro")
	if !ok {
		return code
	}
	out := sim.RunScheduleAgent(schedule, c.opts.Agent)
	var start int64
	if len(out.Log) > 0 {
		start = out.Log[0].Time
	}
	fmt.Fprint(c.stdout, sim.Timeline(out.Log, start))
	if *logFile != "" {
		if err := os.WriteFile(*logFile, out.JSONL, 0o644); err != nil {
			return c.usageError("-log: %v", err)
		}
	}
	if len(out.Violations) == 0 {
		fmt.Fprintln(c.stdout, "no violations")
		return exitOK
	}
	for _, v := range out.Violations {
		fmt.Fprintln(c.stdout, v)
	}
	return exitViolation
}

// shrink minimises a schedule (a file, or -seed) while its property keeps failing, and prints
// the smallest schedule found (or writes it with -o).
func (c *cli) shrink(args []string) int {
	fs := c.flagSet("shrink", "shrink (-seed S | SCHEDULE.json) -property NAME [-budget D] [-o FILE]")
	seed := fs.Int64("seed", 0, "the seed to shrink")
	faultNames := fs.String("faults", "", "the -faults the seed was run with")
	property := fs.String("property", "", "the property that must keep failing (default: the first the schedule breaks)")
	budget := fs.Duration("budget", 30*time.Second, "wall time to spend")
	output := fs.String("o", "", "write the shrunk schedule to FILE (default: standard output)")
	positional, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	seedSet := false
	fs.Visit(func(f *flag.Flag) { seedSet = seedSet || f.Name == "seed" })
	schedule, code, ok := c.schedule(seedSet, *seed, *faultNames, positional, "shrink")
	if !ok {
		return code
	}
	name := *property
	if name == "" {
		violations := sim.RunScheduleAgent(schedule, c.opts.Agent).Violations
		if len(violations) == 0 {
			return c.usageError("shrink: the schedule breaks no property; nothing to shrink")
		}
		name = violations[0].Property
	} else if !sim.FailsAgent(schedule, name, c.opts.Agent) {
		return c.usageError("shrink: the schedule does not break %s", name)
	}
	r := sim.ShrinkAgent(schedule, name, *budget, c.opts.Agent)
	data, err := sim.CorpusEntry{Format: sim.CorpusFormat, Version: sim.CorpusVersion, TurnsimVersion: sim.Version, Property: name, Seed: schedule.Seed, FoundBy: c.opts.Command + " shrink", SizeBefore: r.SizeBefore, SizeAfter: r.SizeAfter, Schedule: r.Schedule}.Marshal()
	if err != nil {
		panic(err)
	}
	fmt.Fprintf(c.stderr, "shrunk for %s: size %d → %d in %d runs\n", name, r.SizeBefore, r.SizeAfter, r.Runs)
	if *output == "" {
		_, _ = c.stdout.Write(data)
		return exitOK
	}
	if err := os.WriteFile(*output, data, 0o644); err != nil {
		return c.usageError("-o: %v", err)
	}
	fmt.Fprintf(c.stderr, "saved %s; reproduce: %s repro %s\n", *output, c.opts.Command, *output)
	return exitOK
}

// schedule is the schedule -seed draws or the one file names.
func (c *cli) schedule(seedSet bool, seed int64, faultNames string, positional []string, command string) (sim.Schedule, int, bool) {
	switch {
	case seedSet && len(positional) == 0:
		allowed, err := c.faults(faultNames)
		if err != nil {
			return sim.Schedule{}, c.usageError("-faults: %v", err), false
		}
		return sim.NewSchedule(seed, allowed), 0, true
	case !seedSet && len(positional) == 1:
		if faultNames != "" {
			return sim.Schedule{}, c.usageError("-faults shapes drawn schedules; a schedule file already fixes its faults"), false
		}
		data, err := readCapped(positional[0], scheduleFileBytesMax)
		if err != nil {
			return sim.Schedule{}, c.usageError("%v", err), false
		}
		schedule, _, err := sim.LoadSchedule(data)
		if err != nil {
			return sim.Schedule{}, c.usageError("schedule file %s: %v", positional[0], err), false
		}
		return schedule, 0, true
	}
	return sim.Schedule{}, c.usageError("%s takes -seed S or one schedule file", command), false
}
