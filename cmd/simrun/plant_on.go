//go:build plantedbugs

package main

import (
	"fmt"
	"io"

	"github.com/turnsim/turnsim/internal/plant"
)

// plantedBuild tells whether this build has the planted bugs, so that a repeat command names
// the build tag it needs.
const plantedBuild = true

// setPlant switches on the named planted bug for every run of this process.
func setPlant(name string) error {
	if err := plant.Set(name); err != nil {
		return fmt.Errorf("-plant: %w ('simrun plants' lists them)", err)
	}
	return nil
}

func runPlants(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("plants", "plants [-markdown]", stderr)
	markdown := fs.Bool("markdown", false, "print a Markdown table (as in the README)")
	if code, ok := parseNoArguments(fs, args, stderr); !ok {
		return code
	}
	if *markdown {
		fmt.Fprintln(stdout, "| planted bug | caught by | defect |\n| --- | --- | --- |")
	}
	for _, b := range plant.Catalogue {
		if *markdown {
			fmt.Fprintf(stdout, "| `%s` | `%s` | %s |\n", b.Name, b.Property, b.Doc)
		} else {
			fmt.Fprintf(stdout, "%-30s caught by %-26s %s\n", b.Name, b.Property, b.Doc)
		}
	}
	return exitOK
}
