// Package cli is simrun: one command set, one flag set and one JSON summary format, for
// turnsim's own agent and for a user's. cmd/simrun is Main with turnsim's simulated agent (and
// the commands only turnsim has, such as the seed article's scenarios); a user's command is Main
// with their sim.Agent, so that `go run ./cmd/mysim` runs, shards, merges, reproduces, shrinks,
// checks, fuzzes and mutation-tests their agent (their tools, handlers, strategy, middleware,
// properties and registered policy families) exactly as simrun does turnsim's:
//
//	func main() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, cli.Options{Agent: myagent.Sim(), Main: "./cmd/mysim"})) }
//
// Exit codes are contracts: 0 nothing found, 1 a property failed, 2 bad usage, bad input or a
// configuration the harness refuses, 3 an internal error (a bug: the message says how to
// reproduce it). Given the process's own standard output and error (as above), Main runs the
// command in a child process it watches (supervise.go), so that even a crash no recover can
// catch exits 3, and a signal reaches every process the command started.
package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/turnsim/turnsim/sim"
)

// Exit codes: what scripts and CI rely on.
const (
	ExitOK        = 0
	ExitViolation = 1
	ExitUsage     = 2
	// ExitInternal is a bug in the command (a recovered panic, or a crash of the supervised
	// process): never confused with bad usage, so CI can tell "you called it wrong" from "it
	// broke".
	ExitInternal = 3
)

// Short names inside the package.
const (
	exitOK        = ExitOK
	exitViolation = ExitViolation
	exitUsage     = ExitUsage
	exitInternal  = ExitInternal
)

// Options say which agent the command runs, how it names itself, and what it builds mutants
// from.
type Options struct {
	// Agent is the agent every command runs (the zero Agent: turnsim's own simulated agent).
	Agent sim.Agent
	// Name is the program's name in its messages ("mysim: unknown command …"); "" takes the last
	// element of Main, or of Command, or of the binary's path.
	Name string
	// Command is how the user runs this binary, as printed in repro lines; "" works it out from
	// os.Args[0]: the path as typed, or `go run MAIN` for a binary `go run` or `go test` built.
	Command string
	// Main is this command's main package, relative to the module root ("./cmd/mysim"): what
	// -plant NAME builds with a mutant planted, and what mutate builds with each mutant (unless
	// MutateMain or the mutant's own Main header says otherwise). "" makes -plant refuse and mutate ask for -main.
	Main string
	// MutateMain, if set, is what mutate (and -plant) builds with each mutant instead of Main:
	// a smaller main that runs the same agent and builds faster (turnsim's ./cmd/simrun/hunt).
	// A mutant whose header names its own Main is built into that one.
	MutateMain string
	// Mutants is the folder of the agent's mutant files (NAME.patch), relative to the module
	// root; "" is "mutants".
	Mutants string
	// Commands are the program's own commands beside the shared ones (turnsim's scenario,
	// scenarios and serve), listed after them.
	Commands []Command
}

// Command is one of a program's own commands (Options.Commands): Run gets the arguments after
// the command's name and returns the exit code.
type Command struct {
	Name, Summary string
	Run           func(args []string, stdout, stderr io.Writer) int
}

// cli is one invocation of Main.
type cli struct {
	opts   Options
	name   string // in messages
	self   string // how to run this binary, in the commands it prints
	stdout *outputWriter
	stderr io.Writer
	// seed is the seed a command is working on, when it works on one at a time (repro, shrink),
	// so that an internal error can name it; nil otherwise.
	seed atomic.Pointer[int64]
}

// command is one of the shared commands.
type command struct {
	name, summary string
	run           func(c *cli, args []string) int
	// plant says the command runs the agent and so takes -plant NAME.
	plant bool
}

// commands are the shared commands, in the order usage lists them. A new command is one line
// here and a method of cli.
func commands() []command {
	return []command{
		{"run", "run seeded schedules and check every property (the default command)", (*cli).run, true},
		{"repro", "re-run one seed or schedule file: its timeline and its violations", (*cli).repro, true},
		{"shrink", "minimise a failing schedule file, keeping its property failing", (*cli).shrink, true},
		{"check", "validate session logs against the invariant layer, the log-only properties and the agent's own", (*cli).check, false},
		{"replay", "turn an incident's session log into a schedule and replay it: what broke, and whether a fix holds", (*cli).replay, true},
		{"serve", "serve a provider plan over loopback HTTP (OpenAI and Anthropic SSE) for real adapters", (*cli).serve, false},
		{"merge", "combine the -json summaries of run -shard 1/n … n/n into the whole run's", (*cli).merge, false},
		{"policy", "compare retry policies under contention: many agents, one provider", (*cli).policy, false},
		{"fuzz-policy", "fuzz retry policy families' parameters and schedules against the safety properties", (*cli).fuzzPolicy, true},
		{"faults", "list the fault catalogue", (*cli).faults, false},
		{"properties", "list the properties: the catalogue's and the agent's own", (*cli).properties, false},
		{"mutate", "mutation testing: build each mutant (a planted defect) and hunt it with seeds", (*cli).mutate, false},
		{"plants", "list the mutants, the planted defects -plant NAME builds in (as mutate -list)", (*cli).plants, false},
	}
}

// Main runs the command args name (run when there is none) on opts.Agent and returns the exit
// code. An agent the harness refuses is reported once, as the configuration error it is.
//
// Given the process's own os.Stdout and os.Stderr, outside `go test`, Main runs the command in a
// watched child process (see supervise.go) and returns the child's exit code; handed other
// writers (a test's buffers), it runs the command in-process.
func Main(args []string, stdout, stderr io.Writer, opts Options) int {
	c := newCLI(opts, stdout, stderr)
	asProcess := stdout == io.Writer(os.Stdout) && stderr == io.Writer(os.Stderr) && !testing.Testing()
	if asProcess {
		if stdoutClosed() {
			fmt.Fprintf(os.Stderr, "%s: standard output is closed: the output would be lost\n", c.name)
			return exitUsage
		}
		if code, supervised := supervise(args, c.name, c.self); supervised {
			return code
		}
		release := catchSignals()
		defer release()
	}
	code := c.main(args)
	if asProcess {
		reportExit(code)
	}
	return code
}

func newCLI(opts Options, stdout, stderr io.Writer) *cli {
	c := &cli{opts: opts, stdout: &outputWriter{w: stdout}, stderr: stderr}
	c.name = opts.Name
	if c.name == "" {
		c.name = programName(opts.Main, opts.Command, os.Args[0])
	}
	c.self = opts.Command
	if c.self == "" {
		c.self = selfFrom(os.Args[0], opts.Main)
	}
	if outer := os.Getenv(selfEnv); outer != "" {
		c.self = outer // a mutant build (-plant): the command the user ran built it
	}
	return c
}

// main runs one command, turning a panic into exit 3 and a failed write of the output into 2.
func (c *cli) main(args []string) (code int) {
	defer c.recoverInternal(args, &code)
	code = c.dispatch(args)
	if err := c.stdout.err; err != nil && code != exitInternal {
		fmt.Fprintf(c.stderr, "%s: writing the output: %v (nothing more was written)\n", c.name, pathErrorText(err))
		code = exitUsage
	}
	return code
}

// dispatch picks the command named by args[0] (run when there is none) and runs it.
func (c *cli) dispatch(args []string) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && !isHelp(args[0]) {
		args = append([]string{"run"}, args...) // the default command
	}
	if args[0] == "help" && len(args) == 2 && !isHelp(args[1]) && !strings.HasPrefix(args[1], "-") {
		args = []string{args[1], "-h"} // help CMD: that command's usage, as CMD -h prints it
	}
	if isHelp(args[0]) {
		c.usage(c.stdout)
		return exitOK
	}
	if err := c.opts.Agent.Validate(); err != nil {
		fmt.Fprintln(c.stderr, err)
		return exitUsage
	}
	for _, cmd := range commands() {
		if cmd.name != args[0] {
			continue
		}
		if name := plantedArg(args[1:]); cmd.plant && name != "" && os.Getenv(mutantEnv) != name {
			return c.runPlanted(name, args)
		}
		return cmd.run(c, args[1:])
	}
	for _, cmd := range c.opts.Commands {
		if cmd.Name == args[0] {
			return cmd.Run(args[1:], c.stdout, c.stderr)
		}
	}
	fmt.Fprintf(c.stderr, "%s: unknown command %q\n\n", c.name, args[0])
	c.usage(c.stderr)
	return exitUsage
}

func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "help":
		return true
	}
	return false
}

func (c *cli) usage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s [command] [flags] [arguments]\n", c.name)
	fmt.Fprintf(w, "With no command, %s runs 'run' on the default mix of %d seeds.\n", c.name, defaultSeeds)
	fmt.Fprintln(w, "\ncommands:")
	for _, cmd := range commands() {
		fmt.Fprintf(w, "  %-11s %s\n", cmd.name, cmd.summary)
	}
	for _, cmd := range c.opts.Commands {
		fmt.Fprintf(w, "  %-11s %s\n", cmd.Name, cmd.Summary)
	}
	fmt.Fprintf(w, "\nRun '%s <command> -h' (or '%s help <command>') for a command's flags.\n", c.name, c.name)
	fmt.Fprintf(w, "Exit codes: 0 nothing found, 1 a property failed, 2 bad usage or bad input, 3 a bug in %s.\n", c.name)
}

// programName is the name a program goes by in its messages: its main package's last element,
// or the last element of how it is run ("go run ./cmd/mysim": mysim), or its binary's.
func programName(mainPackage, command, arg0 string) string {
	switch {
	case mainPackage != "":
		return filepath.Base(mainPackage)
	case command != "":
		fields := strings.Fields(command)
		return filepath.Base(fields[len(fields)-1])
	}
	return strings.TrimSuffix(filepath.Base(arg0), ".exe")
}

// outputWriter is standard output as a command writes it: the first write error is kept (a
// full disk, a closed descriptor), later writes are dropped, and main turns it into exit 2, so a
// lost output never passes for success.
type outputWriter struct {
	w   io.Writer
	err error
}

func (o *outputWriter) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	o.err = err
	return n, err
}
