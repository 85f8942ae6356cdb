// Command chatsim is simrun for examples/chat's agent: every simrun command that runs an agent
// (run, repro, shrink, check, replay, properties), on chat's configuration (the harness's default
// retry policy and pool, its clock tool). Its replay turns a chat session log into a schedule and
// replays it on chat's agent; see docs/replay.md.
//
//	go run ./examples/chat/chatsim replay chat-session.jsonl
package main

import (
	"os"

	"github.com/turnsim/turnsim/examples/chat/clocktool"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/sim/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, cli.Options{Agent: agent(), Main: "./examples/chat/chatsim"}))
}

// agent is chat's agent as the simulator runs it: its one tool, reading the world's clock.
func agent() sim.Agent {
	return sim.Agent{Tools: func(rt harness.Runtime) []harness.Tool { return []harness.Tool{clocktool.Tool(rt.Clock())} }}
}
