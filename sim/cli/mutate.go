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
	work, err := tempDir(c.name + "-mutate-")
	if err != nil {
		return c.usageError("mutate: %v", err)
	}
	defer removeTemp(work)
	return mutate.Main(args, c.stdout, c.stderr, mutate.Defaults{Command: c.self, Name: c.name, Dir: c.mutantsDir(), Main: c.mutantMain(), Work: work})
}

// plants lists the mutants (as `mutate -list`).
func (c *cli) plants(args []string) int {
	fs := c.flagSet("plants", "plants [-markdown]")
	markdown := fs.Bool("markdown", false, "print a Markdown table (as in the README)")
	if code, ok := c.parseNoArguments(fs, args); !ok {
		return code
	}
	all, _, err := c.loadMutants()
	if err != nil {
		return c.usageError("plants: %v", err)
	}
	mutate.List(c.stdout, all, *markdown)
	return exitOK
}

// loadMutants reads the agent's mutants from the module this command runs in, and returns that
// module's root (where a mutant is built).
func (c *cli) loadMutants() ([]mutate.Mutant, string, error) {
	root, err := mutate.MutantsRoot(".", c.mutantsDir())
	if err != nil {
		return nil, "", err
	}
	all, err := mutate.Load(filepath.Join(root, filepath.FromSlash(c.mutantsDir())))
	return all, root, err
}
