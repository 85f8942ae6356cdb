package cli

import (
	"fmt"
	"slices"
	"time"

	"github.com/turnsim/turnsim/internal/atomicfile"
	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim"
)

// defaultShrinkTime bounds how long a failure is minimised.
const defaultShrinkTime = 30 * time.Second

func (c *cli) shrink(args []string) int {
	fs := c.flagSet("shrink", "shrink [-time 30s] [-property NAME] [-o FILE] [-plant NAME] (SCHEDULE.json | -seed S [-faults a,b])")
	budget := fs.Duration("time", defaultShrinkTime, "how long to keep minimising")
	property := fs.String("property", "", "the property that must keep failing (default: the corpus file's, or the first that fails)")
	out := fs.String("o", "", "write the minimised corpus file to FILE (default: stdout)")
	seed := fs.Int64("seed", 0, "shrink this seed's drawn schedule (instead of a file)")
	var sel selection
	sel.register(fs, c.name)
	positional, err := ParseFlags(fs, args)
	if err != nil {
		return FlagExit(err)
	}
	if *budget < 0 {
		return c.usageError("-time %v is negative", *budget)
	}
	if *property != "" && !c.knownProperty(*property) {
		return c.usageError("-property %q is not a property ('%s properties' lists them)", *property, c.name)
	}
	allowed, err := sel.apply()
	if err != nil {
		return c.usageError("%v", err)
	}
	if len(positional) == 0 && !setFlags(fs)["seed"] {
		return c.usageError("shrink needs exactly one schedule or corpus file (or -seed S)")
	}
	var inputs []namedPath
	if len(positional) == 1 {
		inputs = []namedPath{{"schedule file", positional[0]}}
	}
	if err := checkOutputs(inputs, []namedPath{{"-o", *out}}); err != nil {
		return c.usageError("%v", err)
	}
	schedule, entry, _, code, ok := c.scheduleToRun(setFlags(fs)["seed"], *seed, &sel, allowed, positional, "shrink")
	if !ok {
		return code
	}
	source := fmt.Sprintf("seed %d", schedule.Seed)
	if len(positional) == 1 {
		source = positional[0]
	}
	name := *property
	if name == "" && entry != nil {
		name = entry.Property
		if !c.knownProperty(name) {
			return c.usageError("%s names the property %q, which this build does not know ('%s properties' lists them)", source, name, c.name)
		}
	}
	c.workingOn(schedule.Seed)
	if name == "" {
		violations := sim.RunScheduleAgent(schedule, c.opts.Agent).Violations
		if len(violations) == 0 {
			fmt.Fprintf(c.stderr, "%s: %s breaks no property: nothing to shrink\n", c.name, source)
			return exitOK
		}
		name = violations[0].Property // found by running it: it fails, no need to ask again
	} else if !sim.FailsAgent(schedule, name, c.opts.Agent) {
		fmt.Fprintf(c.stderr, "%s: %s does not break %s (any more?): nothing to shrink\n", c.name, source, name)
		return exitOK
	}
	result := sim.ShrinkAgent(schedule, name, *budget, c.opts.Agent)
	fmt.Fprintf(c.stderr, "shrunk %s for %s: size %d → %d in %d runs%s\n", source, name, result.SizeBefore, result.SizeAfter, result.Runs, completeness(result))
	minimised := corpusEntry(result, schedule.Seed, c.name+" shrink "+source)
	encoded, err := minimised.Marshal()
	if err != nil {
		panic(c.name + ": invariant: a shrunk schedule always encodes: " + err.Error())
	}
	if *out == "" {
		c.stdout.Write(encoded)
	} else if err := atomicfile.Write(*out, encoded); err != nil {
		return c.usageError("-o: %v", outputErrorText(err))
	} else {
		fmt.Fprintf(c.stderr, "saved %s; reproduce: %s\n", *out, c.reproFileCommand(&sel, *out))
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

// knownProperty tells whether name is a property a schedule can be shrunk for: the catalogue's
// or the agent's own. (The determinism pseudo-property cannot be: re-running a seed cannot
// shrink it.)
func (c *cli) knownProperty(name string) bool {
	return slices.Contains(c.propertyNames(), name)
}

// propertyNames are the catalogue's properties, then the agent's own.
func (c *cli) propertyNames() []string {
	names := properties.Names()
	for _, p := range c.opts.Agent.Seeded().Properties {
		names = append(names, p.Name)
	}
	return names
}
