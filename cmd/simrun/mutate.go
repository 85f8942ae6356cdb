package main

import (
	"io"
	"path/filepath"

	"github.com/turnsim/turnsim/sim/mutate"
)

// mutantsDir and mutantMain are where turnsim keeps its mutants and what each is built into, both
// relative to the module root.
const (
	mutantsDir = "internal/mutants"
	mutantMain = "./cmd/simrun"
	// huntMain is what mutate builds each mutant into: a minimal main on sim/cli (see its doc).
	huntMain = "./internal/mutants/hunt"
)

// runMutate is `simrun mutate`: mutation testing of the property catalogue (package sim/mutate).
func runMutate(args []string, stdout, stderr io.Writer) int {
	return mutate.Main(args, stdout, stderr, mutate.Defaults{Command: self(), Dir: mutantsDir, Main: huntMain})
}

// runPlants is `simrun plants`: the mutants, listed (as `simrun mutate -list`).
func runPlants(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("plants", "plants [-markdown]", stderr)
	markdown := fs.Bool("markdown", false, "print a Markdown table (as in the README)")
	if code, ok := parseNoArguments(fs, args, stderr); !ok {
		return code
	}
	all, err := loadMutants()
	if err != nil {
		return usageError(stderr, "plants: %v", err)
	}
	mutate.List(stdout, all, *markdown)
	return exitOK
}

// loadMutants reads turnsim's mutants from the module this simrun runs in.
func loadMutants() ([]mutate.Mutant, error) {
	root, err := mutate.ModuleRoot(".")
	if err != nil {
		return nil, err
	}
	return mutate.Load(filepath.Join(root, filepath.FromSlash(mutantsDir)))
}
