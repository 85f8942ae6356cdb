package main

import (
	"fmt"
	"io"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim"
)

func runFaults(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("faults", "faults [-markdown] [-coverage N]", stderr)
	markdown := fs.Bool("markdown", false, "print a Markdown table (as in the README), without coverage")
	coverage := fs.Int("coverage", 1000, "measure each fault's coverage over this many default-mix seeds (0: do not)")
	if code, ok := parseNoArguments(fs, args, stderr); !ok {
		return code
	}
	if *coverage < 0 || *coverage > coverageSeedsMax {
		fmt.Fprintf(stderr, "simrun faults: -coverage %d is outside [0, %d]\n", *coverage, coverageSeedsMax)
		return exitUsage
	}
	if *markdown {
		fmt.Fprintln(stdout, "| fault | group | what it does |\n| --- | --- | --- |")
		for _, f := range faults.Catalogue() {
			fmt.Fprintf(stdout, "| `%s` | %s | %s |\n", f.Name, f.Group, f.Doc)
		}
		return exitOK
	}
	var struck map[string]int
	if *coverage > 0 {
		// Coverage is what the world injected (its own record), seed by seed: a fault that
		// reaches too few seeds finds nothing.
		struck = sim.RunSeeds(sim.RunOptions{Start: 1, Count: *coverage}).FaultCoverage
		fmt.Fprintf(stdout, "%-30s %-9s %-9s %s\n", "fault", "group", "coverage", fmt.Sprintf("what it does (coverage: share of %d default-mix seeds it struck in)", *coverage))
	}
	for _, f := range faults.Catalogue() {
		if struck == nil {
			fmt.Fprintf(stdout, "%-30s %-9s %s\n", f.Name, f.Group, f.Doc)
			continue
		}
		share := fmt.Sprintf("%.1f%%", 100*float64(struck[f.Name])/float64(*coverage))
		fmt.Fprintf(stdout, "%-30s %-9s %-9s %s\n", f.Name, f.Group, share, f.Doc)
	}
	return exitOK
}

// coverageSeedsMax bounds simrun faults -coverage: a catalogue listing, not a test run.
const coverageSeedsMax = 100_000

func runProperties(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("properties", "properties [-markdown]", stderr)
	markdown := fs.Bool("markdown", false, "print a Markdown table (as in the README)")
	if code, ok := parseNoArguments(fs, args, stderr); !ok {
		return code
	}
	if *markdown {
		fmt.Fprintln(stdout, "| property | what it protects | log only |\n| --- | --- | --- |")
	}
	for _, p := range properties.Catalogue() {
		logOnly := ""
		if properties.LogOnly(p.Name) {
			logOnly = "yes"
		}
		if *markdown {
			fmt.Fprintf(stdout, "| `%s` | %s | %s |\n", p.Name, p.Doc, logOnly)
		} else {
			fmt.Fprintf(stdout, "%-26s %s\n", p.Name, p.Doc)
		}
	}
	return exitOK
}
