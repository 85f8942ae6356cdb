// Command hunt is what `simrun mutate` builds with each of turnsim's mutants planted (and what
// `simrun run -plant NAME` builds): turnsim's own simulated agent on sim/cli and nothing else. It
// links neither the servers and commands simrun carries nor the provider adapters, whose SDKs
// make a build about four times as costly; so its seeds draw no wire (sim.WireRegistered), and a
// seed is the same schedule in every build of hunt. A mutant of the adapters names
// ./cmd/simrun/huntwire in its header (Main:), which links them.
package main

import (
	"os"

	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/sim/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, cli.Options{Agent: sim.Agent{}, Name: "hunt", Command: "hunt", Main: "./cmd/simrun/hunt", Mutants: "internal/mutants"}))
}
