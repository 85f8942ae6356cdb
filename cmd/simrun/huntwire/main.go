// Command huntwire is hunt with the real provider adapters on the wire (sim/wire), as simrun
// runs them: what `simrun mutate` builds a mutant into when its header says
// `Main: ./cmd/simrun/huntwire`, the mutants of the adapters and the wire, which hunt does not
// link.
package main

import (
	"os"

	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/sim/cli"
	_ "github.com/turnsim/turnsim/sim/wire" // the real adapters on the wire, as in simrun's runs
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, cli.Options{Agent: sim.Agent{}, Name: "huntwire", Command: "huntwire", Main: "./cmd/simrun/huntwire", Mutants: "internal/mutants"}))
}
