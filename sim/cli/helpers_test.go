package cli

import (
	"bytes"

	"github.com/turnsim/turnsim/sim"
)

// turnsimOptions are cmd/simrun's options but for its own commands: turnsim's agent, mutants and
// main packages.
func turnsimOptions() Options {
	return Options{Agent: sim.Agent{}, Name: "simrun", Main: "./cmd/simrun", MutateMain: "./cmd/simrun/hunt", Mutants: "internal/mutants"}
}

// simrun runs a command in-process as cmd/simrun would, and returns its exit code, stdout and
// stderr.
func simrun(args ...string) (int, string, string) {
	return runWith(turnsimOptions(), args...)
}

// runWith runs a command in-process with opts.
func runWith(opts Options, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := Main(args, &stdout, &stderr, opts)
	return code, stdout.String(), stderr.String()
}
