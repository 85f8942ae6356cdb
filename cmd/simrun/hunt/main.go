// Command hunt is what `simrun mutate` builds with each of turnsim's mutants planted: turnsim's
// own simulated agent on sim/cli, and nothing else. It links neither the provider adapters nor
// the servers simrun carries, so each mutant builds in about a third less time.
package main

import (
	"os"

	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/sim/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, cli.Options{Agent: sim.Agent{}, Name: "hunt", Command: "hunt", Main: "./cmd/simrun/hunt", Mutants: "internal/mutants"}))
}
