// Command simrun is turnsim's front door: it runs the seed article's scenarios, and seeded
// schedules of the simulated world, and reproduces what they find.
//
// Exit codes: 0 nothing found, 1 a property failed, 2 bad usage or bad input, 3 an internal error
// of simrun itself (a bug: the message says how to reproduce it).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// Exit codes are contracts: scripts and CI rely on them.
const (
	exitOK        = 0
	exitViolation = 1
	exitUsage     = 2
	// exitInternal is a bug in simrun (a recovered panic, or a crash of the supervised process):
	// never confused with bad usage, so CI can tell "you called it wrong" from "it broke".
	exitInternal = 3
)

// command is one subcommand of simrun.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"run", "run seeded schedules and check every property (the default command)", runRun},
		{"repro", "re-run one seed or schedule file: its timeline and its violations", runRepro},
		{"shrink", "minimise a failing schedule file, keeping its property failing", runShrink},
		{"policy", "compare retry policies under contention: many agents, one provider", runPolicy},
		{"fuzz-policy", "fuzz retry policy families' parameters and schedules against the safety properties", runFuzzPolicy},
		{"check", "validate session logs against the invariant layer and the log-only properties", runCheck},
		{"replay", "turn an incident's session log into a schedule and replay it: what broke, and whether a fix holds", runReplay},
		{"merge", "combine the -json summaries of run -shard 1/n … n/n into the whole run's", runMerge},
		{"serve", "serve a provider plan over loopback HTTP (OpenAI and Anthropic SSE) for real adapters", runServe},
		{"scenarios", "list the seed article's scenarios", runScenarios},
		{"scenario", "run one scenario and print its JSON Lines session log", runScenario},
		{"faults", "list the fault catalogue", runFaults},
		{"properties", "list the property catalogue", runProperties},
		{"mutate", "mutation testing: build each mutant (a planted defect) and hunt it with seeds", runMutate},
		{"plants", "list the mutants, the planted defects -plant NAME builds in (as mutate -list)", runPlants},
	}
}

func main() {
	if code, supervised := supervise(os.Args[1:]); supervised {
		os.Exit(code)
	}
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	reportExit(code)
	os.Exit(code)
}

// run dispatches to a subcommand and returns the exit code. A panic on this goroutine is
// recovered into exit code 3 with a message that says it is a bug and how to reproduce it.
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer recoverInternal(args, stderr, &code)
	return dispatch(args, stdout, stderr)
}

// dispatch picks the subcommand named by args[0] (run when there is none) and runs it.
func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && !isHelp(args[0]) {
		if name := plantedArg(args); name != "" && os.Getenv(mutantEnv) != name {
			return runPlanted(name, args, stdout, stderr)
		}
		return runRun(args, stdout, stderr) // simrun on its default: run the default mix
	}
	if name := plantedArg(args[1:]); name != "" && plantCommands[args[0]] && os.Getenv(mutantEnv) != name {
		return runPlanted(name, args, stdout, stderr)
	}
	if isHelp(args[0]) {
		usage(stdout)
		return exitOK
	}
	for _, c := range append(commands(), hiddenCommands...) {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "simrun: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "help":
		return true
	}
	return false
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: simrun [command] [flags] [arguments]")
	fmt.Fprintln(w, "With no command, simrun runs 'run' on the default mix of 10,000 seeds.")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'simrun <command> -h' for a command's flags.")
	fmt.Fprintln(w, "Exit codes: 0 nothing found, 1 a property failed, 2 bad usage or bad input, 3 a bug in simrun.")
}

// parseFlags parses flags that may stand before, between or after positional arguments, and
// returns the positional ones. A bad flag is reported on stderr by the flag set; -h prints the
// flag set's usage and returns flag.ErrHelp.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if rest[0] == "--" {
			return append(positional, rest[1:]...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// newFlagSet returns a flag set that reports its own errors and usage on stderr.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: simrun %s\n", synopsis)
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintln(stderr, "\nflags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// flagExit turns a flag-parsing error into an exit code: -h is not an error.
func flagExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}

// usageError prints a usage error naming what is wrong and returns exit code 2.
func usageError(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "simrun: "+strings.TrimSuffix(format, "\n")+"\n", args...)
	return exitUsage
}

// parseNoArguments parses the flags of a command that takes no arguments. ok is false when the
// command must stop and exit with code (a bad flag, -h, or an argument it does not take).
func parseNoArguments(fs *flag.FlagSet, args []string, stderr io.Writer) (code int, ok bool) {
	positional, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err), false
	}
	if len(positional) > 0 {
		return usageError(stderr, "%s takes no arguments, got %q", fs.Name(), strings.Join(positional, " ")), false
	}
	return exitOK, true
}

// setFlags names the flags given on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}
