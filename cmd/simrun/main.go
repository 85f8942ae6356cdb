// Command simrun is turnsim's front door: it runs seeded schedules of the simulated world, and
// reproduces, shrinks, checks, merges and fuzzes what they find (sim/cli, which a user's own
// command shares with it), and runs the seed article's scenarios and a fault server for real
// adapters (its own commands, below).
//
// Exit codes: 0 nothing found, 1 a property failed, 2 bad usage or bad input, 3 an internal error
// of simrun itself (a bug: the message says how to reproduce it).
package main

import (
	"os"

	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/sim/cli"
)

// options are simrun's: turnsim's own agent, its mutants and its main packages, and the commands
// only turnsim has.
func options() cli.Options {
	return cli.Options{
		Agent:      sim.Agent{},
		Name:       "simrun",
		Main:       "./cmd/simrun",
		MutateMain: "./cmd/simrun/hunt", // links neither the adapters nor the servers: builds faster
		Mutants:    "internal/mutants",
		Commands: []cli.Command{
			{Name: "scenarios", Summary: "list the seed article's scenarios", Run: runScenarios},
			{Name: "scenario", Summary: "run one scenario and print its JSON Lines session log", Run: runScenario},
		},
	}
}

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, options()))
}
