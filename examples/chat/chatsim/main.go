// Command chatsim is simrun for examples/chat's agent: every simrun command that runs an agent
// (run, repro, shrink, check, replay, properties), on chat's configuration (the harness's default
// retry policy and pool, its clock tool). Its replay turns a chat session log into a schedule and
// replays it on chat's agent; see docs/replay.md.
//
//	go run ./examples/chat/chatsim replay chat-session.jsonl
package main

import (
	"context"
	"os"
	"time"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/sim/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, cli.Options{Agent: agent(), Main: "./examples/chat/chatsim"}))
}

// agent is chat's agent as the simulator runs it: its one tool, reading the world's clock.
func agent() sim.Agent {
	return sim.Agent{Tools: func(rt harness.Runtime) []harness.Tool { return []harness.Tool{clockTool(rt.Clock())} }}
}

// clockTool is examples/chat's tool (the same code: a chat package main cannot be imported): the
// time in UTC, RFC 3339, on the clock it is given.
func clockTool(clk harness.Clock) harness.Tool {
	return harness.Tool{Name: "clock", Parallel: true, Run: func(ctx context.Context, arguments string) (string, error) {
		return clk.Now().UTC().Format(time.RFC3339), nil
	}}
}
