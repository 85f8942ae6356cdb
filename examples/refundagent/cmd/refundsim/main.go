// Command refundsim is simrun for the refund agent: every simrun command that runs an agent
// (run, repro, shrink, check, properties), on this agent, aimed as it is, with its own property;
// and mutate, which builds this command with each mutant in mutants/ planted and hunts it.
//
//	go run ./cmd/refundsim run -seeds 1000
//	go run ./cmd/refundsim mutate
package main

import (
	"os"

	"example.com/refundagent/refundsim"
	"github.com/turnsim/turnsim/sim/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, cli.Options{Agent: refundsim.Agent(), Main: "./cmd/refundsim"}))
}
