package main

import (
	"io"

	"github.com/turnsim/turnsim/sim/cli"
)

// runReplay is sim/cli's replay on turnsim's own simulated agent: the same command a user's
// agent gets through sim/cli, so that the two never drift apart.
func runReplay(args []string, stdout, stderr io.Writer) int {
	return cli.Main(append([]string{"replay"}, args...), stdout, stderr, cli.Options{Command: "simrun"})
}
