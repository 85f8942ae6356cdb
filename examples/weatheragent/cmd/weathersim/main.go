// Command weathersim is simrun for the weather agent: every simrun command that runs an agent
// (run, repro, shrink, check, properties), on this agent, with its own property; and mutate,
// which builds this command with each mutant in mutants/ planted and hunts it.
//
//	go run ./cmd/weathersim run -seeds 2000 -corpus corpus
//	go run ./cmd/weathersim mutate
package main

import (
	"os"

	"example.com/weatheragent/weathersim"
	"github.com/turnsim/turnsim/sim/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, cli.Options{Agent: weathersim.Agent(), Main: "./cmd/weathersim"}))
}
