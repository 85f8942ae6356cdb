package cli

import (
	"fmt"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim"
)

// coverageSeedsMax bounds faults -coverage: a catalogue listing, not a test run.
const coverageSeedsMax = 100_000

func (c *cli) faults(args []string) int {
	fs := c.flagSet("faults", "faults [-markdown] [-coverage N]")
	markdown := fs.Bool("markdown", false, "print a Markdown table (as in the README), without coverage")
	coverage := fs.Int("coverage", 1000, "measure each fault's coverage over this many default-mix seeds of the agent (0: do not)")
	if code, ok := c.parseNoArguments(fs, args); !ok {
		return code
	}
	if *coverage < 0 || *coverage > coverageSeedsMax {
		return c.usageError("faults: -coverage %d is outside [0, %d]", *coverage, coverageSeedsMax)
	}
	if *markdown && setFlags(fs)["coverage"] {
		return c.usageError("faults: -markdown prints the catalogue without coverage: it does not go with -coverage")
	}
	if *markdown {
		fmt.Fprintln(c.stdout, "| fault | group | what it does |\n| --- | --- | --- |")
		for _, f := range faults.Catalogue() {
			fmt.Fprintf(c.stdout, "| `%s` | %s | %s |\n", f.Name, f.Group, f.Doc)
		}
		return exitOK
	}
	var struck map[string]int
	if *coverage > 0 {
		// Coverage is what the world injected (its own record), seed by seed: a fault that
		// reaches too few seeds finds nothing.
		struck = sim.RunSeeds(sim.RunOptions{Start: 1, Count: *coverage, Agent: c.opts.Agent}).FaultCoverage
		fmt.Fprintf(c.stdout, "%-30s %-9s %-9s %s\n", "fault", "group", "coverage", fmt.Sprintf("what it does (coverage: share of %d default-mix seeds it struck in)", *coverage))
	}
	for _, f := range faults.Catalogue() {
		if struck == nil {
			fmt.Fprintf(c.stdout, "%-30s %-9s %s\n", f.Name, f.Group, f.Doc)
			continue
		}
		share := fmt.Sprintf("%.1f%%", 100*float64(struck[f.Name])/float64(*coverage))
		fmt.Fprintf(c.stdout, "%-30s %-9s %-9s %s\n", f.Name, f.Group, share, f.Doc)
	}
	return exitOK
}

// properties lists the catalogue's properties, then the agent's own.
func (c *cli) properties(args []string) int {
	fs := c.flagSet("properties", "properties [-markdown]")
	markdown := fs.Bool("markdown", false, "print a Markdown table (as in the README)")
	if code, ok := c.parseNoArguments(fs, args); !ok {
		return code
	}
	if *markdown {
		fmt.Fprintln(c.stdout, "| property | what it protects | log only |\n| --- | --- | --- |")
	}
	for _, p := range properties.Catalogue() {
		logOnly := ""
		if properties.LogOnly(p.Name) {
			logOnly = "yes"
		}
		if *markdown {
			fmt.Fprintf(c.stdout, "| `%s` | %s | %s |\n", p.Name, p.Doc, logOnly)
		} else {
			fmt.Fprintf(c.stdout, "%-26s %s\n", p.Name, p.Doc)
		}
	}
	for _, p := range c.opts.Agent.Seeded().Properties {
		if *markdown {
			fmt.Fprintf(c.stdout, "| `%s` | %s (the agent's own) | |\n", p.Name, p.Doc)
		} else {
			fmt.Fprintf(c.stdout, "%-26s %s (the agent's own)\n", p.Name, p.Doc)
		}
	}
	return exitOK
}
