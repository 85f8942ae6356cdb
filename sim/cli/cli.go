// Package cli is simrun for a user's own agent: a library main that a user's command calls with
// their sim.Agent, so that `go run ./cmd/mysim` runs, reproduces, shrinks and checks their agent
// (their tools, handlers, strategy, middleware and properties), where turnsim's own simrun can
// only run turnsim's simulated agent.
//
//	func main() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, cli.Options{Agent: myagent.Sim()})) }
//
// Exit codes are simrun's: 0 nothing found, 1 a property failed, 2 bad usage, bad input or a
// configuration the harness refuses, 3 an internal error (a panic outside the simulated agent:
// in the command, or in a property's check).
package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/sim/mutate"
)

// Options say which agent the command runs, and how it names itself in the commands it prints.
type Options struct {
	Agent sim.Agent
	// Command is how the user runs this binary, as printed in repro lines; "" works it out from
	// os.Args[0]: the path as typed, or `go run ./cmd/NAME` for a binary `go run` built.
	Command string
	// Main is this command's main package (e.g. "./cmd/mysim", relative to the module root):
	// what `mutate` builds with each mutant planted. "" makes mutate ask for -main.
	Main string
	// Mutants is the folder of the agent's mutant files (NAME.patch), relative to the module
	// root; "" is "mutants".
	Mutants string
}

// Exit codes, as simrun's.
const (
	exitOK        = 0
	exitViolation = 1
	exitUsage     = 2
	exitInternal  = 3
)

type command struct {
	name, summary string
	run           func(c *cli, args []string) int
}

var commands = []command{
	{"run", "run seeded schedules of the agent and check every property (the default)", (*cli).run},
	{"repro", "re-run one seed or schedule file: its timeline and its violations", (*cli).repro},
	{"shrink", "minimise a failing schedule file, keeping its property failing", (*cli).shrink},
	{"check", "check session logs against the invariant layer, the log-only properties and the agent's own", (*cli).check},
	{"properties", "list the properties: the catalogue's and the agent's own", (*cli).properties},
	{"mutate", "mutation testing: build this command with each of your mutants planted and hunt it with seeds", (*cli).mutate},
}

// cli is one invocation.
type cli struct {
	opts           Options
	stdout, stderr io.Writer
}

// Main runs the command args name (run when there is none) on opts.Agent and returns the exit
// code. An agent the harness refuses is reported once, as the configuration error it is.
func Main(args []string, stdout, stderr io.Writer, opts Options) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "%s: internal error: %v\nReproduce: %s %s\n%s", opts.Command, p, opts.Command, strings.Join(args, " "), debug.Stack())
			code = exitInternal
		}
	}()
	if opts.Command == "" {
		opts.Command = commandName(os.Args[0])
	}
	c := &cli{opts: opts, stdout: stdout, stderr: stderr}
	if err := opts.Agent.Validate(); err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && !isHelp(args[0]) {
		return c.run(args)
	}
	if isHelp(args[0]) {
		c.usage(stdout)
		return exitOK
	}
	for _, cmd := range commands {
		if cmd.name == args[0] {
			return cmd.run(c, args[1:])
		}
	}
	fmt.Fprintf(stderr, "%s: unknown command %q\n\n", opts.Command, args[0])
	c.usage(stderr)
	return exitUsage
}

// commandName is how the binary at path was run: a binary `go run` built lives in a go-build
// temporary folder, and is named after its package's folder.
func commandName(path string) string {
	if strings.Contains(path, "go-build") {
		return "go run ./cmd/" + filepath.Base(path)
	}
	return path
}

func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "help":
		return true
	}
	return false
}

func (c *cli) usage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s [command] [flags] [arguments]\n\ncommands:\n", c.opts.Command)
	for _, cmd := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", cmd.name, cmd.summary)
	}
	fmt.Fprintln(w, "\nExit codes: 0 nothing found, 1 a property failed, 2 bad usage, bad input or a refused configuration.")
}

// mutate is package mutate's command, on this command's main package and mutants.
func (c *cli) mutate(args []string) int {
	dir := c.opts.Mutants
	if dir == "" {
		dir = "mutants"
	}
	return mutate.Main(args, c.stdout, c.stderr, mutate.Defaults{Command: c.opts.Command, Dir: dir, Main: c.opts.Main})
}

func (c *cli) flagSet(name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() {
		fmt.Fprintf(c.stderr, "usage: %s %s\n", c.opts.Command, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags before or after positional arguments and returns the positional ones.
func parse(fs *flag.FlagSet, args []string) ([]string, int, bool) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, exitOK, false
			}
			return nil, exitUsage, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, 0, true
		}
		positional, args = append(positional, rest[0]), rest[1:]
	}
}

func (c *cli) usageError(format string, args ...any) int {
	fmt.Fprintf(c.stderr, "%s: %s\n", c.opts.Command, fmt.Sprintf(format, args...))
	return exitUsage
}

// faults parses -faults ("" : the whole catalogue).
func (c *cli) faults(list string) ([]string, error) {
	if list == "" {
		return nil, nil
	}
	names, err := faults.ParseList(list)
	if err != nil {
		return nil, err
	}
	return names, sim.CheckFaults(names) // a wire fault needs the wire (sim/wire) linked
}
