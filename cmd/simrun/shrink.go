package main

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim"
)

// defaultShrinkTime bounds how long a failure is minimised.
const defaultShrinkTime = 30 * time.Second

func runShrink(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("shrink", "shrink [-time 30s] [-property NAME] [-o FILE] SCHEDULE.json", stderr)
	budget := fs.Duration("time", defaultShrinkTime, "how long to keep minimising")
	property := fs.String("property", "", "the property that must keep failing (default: the corpus file's, or the first that fails)")
	out := fs.String("o", "", "write the minimised corpus file to FILE (default: stdout)")
	var sel selection
	fs.StringVar(&sel.plant, "plant", "", "run in a simrun built with this mutant planted ('simrun plants' lists them)")
	positional, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(positional) != 1 {
		return usageError(stderr, "shrink needs exactly one schedule or corpus file")
	}
	if *budget < 0 {
		return usageError(stderr, "-time %v is negative", *budget)
	}
	if err := checkOutputs([]namedPath{{"schedule file", positional[0]}}, []namedPath{{"-o", *out}}); err != nil {
		return usageError(stderr, "%v", err)
	}
	if *property != "" && !knownProperty(*property) {
		return usageError(stderr, "-property %q is not a property ('simrun properties' lists them)", *property)
	}
	if _, err := sel.apply(); err != nil {
		return usageError(stderr, "%v", err)
	}
	data, err := readCapped(positional[0], scheduleFileBytesMax, "schedule file")
	if err != nil {
		return usageError(stderr, "%v", err)
	}
	schedule, entry, err := sim.LoadSchedule(data)
	if err != nil {
		return usageError(stderr, "%s: %v", positional[0], err)
	}
	name := *property
	if name == "" && entry != nil {
		name = entry.Property
		if !knownProperty(name) {
			return usageError(stderr, "%s names the property %q, which this build does not know ('simrun properties' lists them)", positional[0], name)
		}
	}
	workingOn(schedule.Seed)
	if name == "" {
		violations := sim.RunSchedule(schedule).Violations
		if len(violations) == 0 {
			fmt.Fprintf(stderr, "simrun: %s breaks no property: nothing to shrink\n", positional[0])
			return exitOK
		}
		name = violations[0].Property
	}
	if !sim.Fails(schedule, name) {
		fmt.Fprintf(stderr, "simrun: %s does not break %s (any more?): nothing to shrink\n", positional[0], name)
		return exitOK
	}
	result := sim.Shrink(schedule, name, *budget)
	fmt.Fprintf(stderr, "shrunk %s for %s: size %d → %d in %d runs%s\n", positional[0], name, result.SizeBefore, result.SizeAfter, result.Runs, completeness(result))
	minimised := corpusEntry(result, schedule.Seed, "simrun shrink "+positional[0])
	encoded, err := minimised.Marshal()
	if err != nil {
		return usageError(stderr, "%v", err)
	}
	if *out == "" {
		stdout.Write(encoded)
	} else if err := writeAll([]output{{*out, encoded}}); err != nil {
		return usageError(stderr, "-o: %v", err)
	}
	return exitViolation
}

func completeness(r sim.ShrinkResult) string {
	if r.Complete {
		return " (no smaller change still fails)"
	}
	return " (stopped at the time limit)"
}

// corpusEntry wraps a shrink result as a corpus file.
func corpusEntry(r sim.ShrinkResult, seed int64, foundBy string) sim.CorpusEntry {
	return sim.CorpusEntry{
		Format: sim.CorpusFormat, Version: sim.CorpusVersion, Property: r.Property, Seed: seed,
		TurnsimVersion: sim.Version, FoundBy: foundBy, SizeBefore: r.SizeBefore, SizeAfter: r.SizeAfter,
		Schedule: r.Schedule,
	}
}

// knownProperty tells whether name is a property a schedule can be shrunk for: one of the
// catalogue's. (The determinism pseudo-property cannot be: re-running a seed cannot shrink it.)
func knownProperty(name string) bool {
	return slices.Contains(properties.Names(), name)
}
