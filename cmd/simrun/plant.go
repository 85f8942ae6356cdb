package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/turnsim/turnsim/sim/mutate"
)

// mutantEnv names, in a simrun built with a mutant planted, the mutant; selfEnv is how the user
// ran the simrun that built it, so the commands the mutant build prints (repro lines) are ones
// the user can type.
const (
	mutantEnv = "SIMRUN_MUTANT"
	selfEnv   = "SIMRUN_SELF"
)

// plantCommands are the commands that take -plant.
var plantCommands = map[string]bool{"run": true, "repro": true, "shrink": true, "fuzz-policy": true}

// plantedArg returns the -plant flag's value among a command's args ("" when there is none).
func plantedArg(args []string) string {
	for i, a := range args {
		a = strings.TrimPrefix(a, "-")
		switch {
		case a == "-plant" || a == "plant":
			if i+1 < len(args) {
				return args[i+1]
			}
		case strings.HasPrefix(a, "plant=") || strings.HasPrefix(a, "-plant="):
			_, value, _ := strings.Cut(a, "=")
			return value
		}
	}
	return ""
}

// runPlanted runs a command in a simrun built with the named mutant planted: `-plant NAME` is
// the shortcut for building that mutant (as `simrun mutate` does: go build -overlay, the working
// tree untouched) and running the same command, -plant included, in it. The build needs turnsim's
// source, so it works inside turnsim's repository.
func runPlanted(name string, args []string, stdout, stderr io.Writer) int {
	all, err := loadMutants()
	if err != nil {
		return usageError(stderr, "-plant %s builds the mutant from turnsim's source: %v", name, err)
	}
	picked, err := mutate.Select(all, []string{name})
	if err != nil {
		return usageError(stderr, "-plant: %v ('simrun plants' lists them)", err)
	}
	root, err := mutate.ModuleRoot(".")
	if err != nil {
		return usageError(stderr, "-plant: %v", err)
	}
	work, err := os.MkdirTemp("", "simrun-plant-"+name+"-")
	if err != nil {
		return usageError(stderr, "-plant: %v", err)
	}
	defer os.RemoveAll(work)
	binary, err := mutate.Build(picked[0], root, mutantMain, work)
	if err != nil {
		return usageError(stderr, "-plant: %v", err)
	}
	cmd := exec.Command(binary, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	cmd.Env = append(os.Environ(), mutantEnv+"="+name, selfEnv+"="+self())
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode()
	}
	fmt.Fprintf(stderr, "simrun: the %s mutant build of simrun did not run: %v\n", name, err)
	return exitInternal
}

// setPlant checks that -plant names the mutant this build carries: dispatch has already moved a
// command with -plant into a build with it planted, so any other name is a mismatch.
func setPlant(name string) error {
	if name == "" || os.Getenv(mutantEnv) == name {
		return nil
	}
	return fmt.Errorf("-plant %q: this simrun was built without it (run the command through simrun, which builds the mutant)", name)
}
