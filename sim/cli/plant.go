package cli

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/turnsim/turnsim/internal/procgroup"
	"github.com/turnsim/turnsim/sim/mutate"
)

// mutantEnv names, in a build of the command with a mutant planted, the mutant; selfEnv is how
// the user ran the command that built it, so the commands the mutant build prints (repro lines)
// are ones the user can type.
const (
	mutantEnv = "SIMRUN_MUTANT"
	selfEnv   = "SIMRUN_SELF"
)

// plantedArg returns the -plant flag's value among a command's args ("" when there is none), as
// the flag package reads it: -plant NAME, --plant NAME, -plant=NAME; the last one wins; nothing
// after "--" is a flag; and a word that is not a flag (a file named plant, say) is no -plant.
func plantedArg(args []string) string {
	value := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, v, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		switch {
		case name != "plant":
		case hasValue:
			value = v
		case i+1 < len(args):
			value = args[i+1]
			i++
		}
	}
	return value
}

// runPlanted runs a command in a build of this command with the named mutant planted: `-plant
// NAME` is the shortcut for building that mutant (as mutate does: go build -overlay, the working
// tree untouched) and running the same command, -plant included, in it. The build needs the
// source, so it works inside the module. It builds the main mutate builds with that mutant, so
// a seed mutate reports kills it here too: the same schedule in the same binary. The mutant build runs in this process's group and dies
// with it; its folder goes when it ends or an interrupt stops this process.
func (c *cli) runPlanted(name string, args []string) int {
	if c.mutantMain() == "" {
		return c.usageError("-plant %s builds this command with the mutant planted, but its main package is not known (cli.Options.Main)", name)
	}
	all, root, err := c.loadMutants()
	if err != nil {
		return c.usageError("-plant %s builds the mutant from the module's source: %v", name, err)
	}
	picked, err := mutate.Select(all, []string{name})
	if err != nil {
		return c.usageError("-plant: %v ('%s plants' lists them)", err, c.name)
	}
	work, err := tempDir(c.name + "-plant-" + name + "-")
	if err != nil {
		return c.usageError("-plant: %v", err)
	}
	defer removeTemp(work)
	binary, err := mutate.Build(picked[0], root, picked[0].MainOr(c.mutantMain()), work)
	if err != nil {
		return c.usageError("-plant: %v", err)
	}
	cmd := exec.Command(binary, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, c.stdout, c.stderr
	cmd.Env = append(os.Environ(), mutantEnv+"="+name, selfEnv+"="+c.self)
	procgroup.Follower(cmd)
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode()
	}
	fmt.Fprintf(c.stderr, "%s: the %s mutant build did not run: %v\n", c.name, name, err)
	return exitInternal
}

// setPlant checks that -plant names the mutant this build carries: dispatch has already moved a
// command with -plant into a build with it planted, so any other name is a mismatch.
func setPlant(name string) error {
	if name == "" || os.Getenv(mutantEnv) == name {
		return nil
	}
	return fmt.Errorf("-plant %q: this build does not carry it (run the command through the command that builds the mutant)", name)
}

// mutantMain is the main package mutate builds a mutant into, and -plant too, unless the mutant
// names its own: Options.MutateMain, else Options.Main.
func (c *cli) mutantMain() string { return cmp.Or(c.opts.MutateMain, c.opts.Main) }
