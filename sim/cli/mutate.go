package cli

import (
	"path/filepath"

	"github.com/turnsim/turnsim/sim/mutate"
)

// mutantsDir is the folder of the agent's mutants, relative to the module root.
func (c *cli) mutantsDir() string {
	if c.opts.Mutants != "" {
		return c.opts.Mutants
	}
	return "mutants"
}

// mutate is package mutate's command, on this command's main package and mutants; each mutant's
// build folder lives under a folder an interrupt removes.
func (c *cli) mutate(args []string) int {
	mainPackage := c.opts.MutateMain
	if mainPackage == "" {
		mainPackage = c.opts.Main
	}
	work, err := tempDir(c.name + "-mutate-")
	if err != nil {
		return c.usageError("mutate: %v", err)
	}
	defer removeTemp(work)
	return mutate.Main(args, c.stdout, c.stderr, mutate.Defaults{Command: c.self, Name: c.name, Dir: c.mutantsDir(), Main: mainPackage, Work: work})
}

// plants lists the mutants (as `mutate -list`).
func (c *cli) plants(args []string) int {
	fs := c.flagSet("plants", "plants [-markdown]")
	markdown := fs.Bool("markdown", false, "print a Markdown table (as in the README)")
	if code, ok := c.parseNoArguments(fs, args); !ok {
		return code
	}
	all, err := c.loadMutants()
	if err != nil {
		return c.usageError("plants: %v", err)
	}
	mutate.List(c.stdout, all, *markdown)
	return exitOK
}

// loadMutants reads the agent's mutants from the module this command runs in.
func (c *cli) loadMutants() ([]mutate.Mutant, error) {
	root, err := mutate.MutantsRoot(".", c.mutantsDir())
	if err != nil {
		return nil, err
	}
	return mutate.Load(filepath.Join(root, filepath.FromSlash(c.mutantsDir())))
}
