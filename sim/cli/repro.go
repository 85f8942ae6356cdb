package cli

import (
	"fmt"
	"strings"

	"github.com/turnsim/turnsim/internal/atomicfile"
	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/sim/timeline"
)

func (c *cli) repro(args []string) int {
	fs := c.flagSet("repro", "repro (-seed S | SCHEDULE.json) [-faults a,b] [-log FILE] [-schedule FILE] [-html FILE] [-plant NAME]")
	seed := fs.Int64("seed", 0, "the seed to re-run")
	logFile := fs.String("log", "", "write the run's JSON Lines session log to FILE")
	scheduleFile := fs.String("schedule", "", "write the run's schedule (JSON) to FILE, to replay it later with 'repro FILE'")
	htmlFile := fs.String("html", "", "write a self-contained HTML timeline of the run (an SVG chart in virtual time) to FILE")
	var sel selection
	sel.register(fs, c.name)
	positional, err := ParseFlags(fs, args)
	if err != nil {
		return FlagExit(err)
	}
	allowed, err := sel.apply()
	if err != nil {
		return c.usageError("%v", err)
	}
	schedule, entry, inputs, code, ok := c.scheduleToRun(setFlags(fs)["seed"], *seed, &sel, allowed, positional, "repro")
	if !ok {
		return code
	}
	if entry != nil && entry.Property != "" && !c.knownProperty(entry.Property) {
		// As shrink refuses it: a corpus file that names a property this build does not know
		// (a typo, another version) would replay without saying what it was kept for.
		return c.usageError("%s names the property %q, which this build does not know ('%s properties' lists them)", positional[0], entry.Property, c.name)
	}
	outputs := []namedPath{{"-log", *logFile}, {"-schedule", *scheduleFile}, {"-html", *htmlFile}}
	if err := checkOutputs(inputs, outputs); err != nil {
		return c.usageError("%v", err)
	}
	c.workingOn(schedule.Seed)
	outcome := sim.RunScheduleAgent(schedule, c.opts.Agent)
	var written []atomicfile.File
	if *logFile != "" {
		written = append(written, atomicfile.File{Path: *logFile, Data: outcome.JSONL})
	}
	if *scheduleFile != "" {
		data, err := schedule.MarshalIndent()
		if err != nil {
			panic(c.name + ": invariant: a schedule that ran always encodes: " + err.Error())
		}
		written = append(written, atomicfile.File{Path: *scheduleFile, Data: append(data, '\n')})
	}
	if *htmlFile != "" {
		written = append(written, atomicfile.File{Path: *htmlFile, Data: timeline.HTML(timeline.FromOutcome(outcome))})
	}
	if err := atomicfile.WriteAll(written); err != nil {
		return c.usageError("%v", outputErrorText(err))
	}
	fmt.Fprintf(c.stdout, "seed %d: %d events, %.3f s of virtual time, faults that struck: %s\n",
		schedule.Seed, len(outcome.Log), outcome.VirtualDuration().Seconds(), strings.Join(outcome.Exercised, ", "))
	fmt.Fprint(c.stdout, sim.Timeline(outcome.Log, 0))
	if len(outcome.Violations) == 0 {
		fmt.Fprintln(c.stdout, "no violation")
		return exitOK
	}
	fmt.Fprintf(c.stdout, "%d violation(s):\n", len(outcome.Violations))
	for _, v := range outcome.Violations {
		fmt.Fprintf(c.stdout, "  %s\n", v)
	}
	return exitViolation
}

// scheduleToRun is the schedule repro and shrink work on: the one -seed draws, or the one the
// file names; inputs names the file read, if any. ok is false when the command must stop with
// code.
func (c *cli) scheduleToRun(seedSet bool, seed int64, sel *selection, allowed []string, positional []string, command string) (schedule sim.Schedule, entry *sim.CorpusEntry, inputs []namedPath, code int, ok bool) {
	switch {
	case seedSet && len(positional) > 0:
		return schedule, nil, nil, c.usageError("%s takes -seed or a schedule file, not both", command), false
	case seedSet:
		return c.opts.Agent.Schedule(seed, allowed), nil, nil, exitOK, true
	case len(positional) == 1:
		if sel.faults != "" {
			return schedule, nil, nil, c.usageError("-faults shapes drawn schedules; a schedule file already fixes its faults"), false
		}
		s, entry, err := readScheduleFile(positional[0])
		if err != nil {
			return schedule, nil, nil, c.usageError("%v", err), false
		}
		return s, entry, []namedPath{{"schedule file", positional[0]}}, exitOK, true
	case len(positional) > 1:
		return schedule, nil, nil, c.usageError("%s takes one schedule file, got %d: %q", command, len(positional), strings.Join(positional, " ")), false
	}
	return schedule, nil, nil, c.usageError("%s needs -seed S or one schedule file", command), false
}
