// Command weathersim is simrun for the weather agent: every simrun command (run, repro, shrink,
// check, merge, policy, fuzz-policy, faults, properties, mutate, plants), on this agent, with its
// own property; mutate builds this command with each mutant in mutants/ planted and hunts it.
//
//	go run ./cmd/weathersim run -seeds 2000 -corpus corpus
//	go run ./cmd/weathersim mutate
//	go run ./cmd/weathersim fuzz-policy -policies forecast-backoff
package main

import (
	"os"

	"example.com/weatheragent/weathersim"
	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/sim/cli"
)

func main() {
	sim.RegisterPolicyFamily(weathersim.BackoffFamily) // fuzz-policy and policy know it by name
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, cli.Options{Agent: weathersim.Agent(), Main: "./cmd/weathersim"}))
}
