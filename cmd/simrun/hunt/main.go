// Command hunt is what `simrun mutate` builds with each of turnsim's mutants planted: turnsim's
// own simulated agent on sim/cli, with the real provider adapters on the wire (sim/wire) as
// simrun runs it, so that a seed is the same schedule in both, and nothing else: it links none of
// the servers and commands simrun carries.
package main

import (
	"os"

	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/sim/cli"
	_ "github.com/turnsim/turnsim/sim/wire" // the real adapters on the wire, as in simrun's runs
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, cli.Options{Agent: sim.Agent{}, Name: "hunt", Command: "hunt", Main: "./cmd/simrun/hunt", Mutants: "internal/mutants"}))
}
