// Command usersim is a user's own command on sim/cli, for sim/cli's tests: a support agent that
// is not turnsim's, with a tool of its own (lookup) and the arguments it is called with, a retry
// strategy of its own from a policy family it registers (support-backoff), a property of its own
// and a mutant of its own. The tests run the same command table against it and cmd/simrun.
//
// Two variables make it misbehave for the tests that need it to: USERSIM_SLOW_TOOL=1 makes the
// tool wait 2 ms with time.Sleep instead of its runtime, USERSIM_BREAKING=1 adds two commands that
// break as a bug would (a panic on the command's goroutine, and on another one).
package main

import (
	"io"
	"os"

	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/sim/cli"
)

func main() {
	sim.RegisterPolicyFamily(supportBackoffFamily)
	opts := cli.Options{
		Agent:   Agent(),
		Main:    "./sim/cli/internal/usersim",
		Mutants: "sim/cli/internal/usersim/mutants",
	}
	if os.Getenv("USERSIM_BREAKING") != "" {
		opts.Commands = []cli.Command{
			{Name: "break-here", Summary: "panic on the command's goroutine", Run: func([]string, io.Writer, io.Writer) int {
				panic("planted: an invariant broke")
			}},
			{Name: "break-elsewhere", Summary: "panic on another goroutine", Run: func([]string, io.Writer, io.Writer) int {
				done := make(chan struct{})
				go func() { panic("planted: a worker broke") }()
				<-done
				return cli.ExitOK
			}},
		}
	}
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, opts))
}
