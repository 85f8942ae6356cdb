package main

import (
	"flag"
	"io"
	"strings"

	"github.com/turnsim/turnsim/sim/cli"
)

// The helpers simrun's own commands (scenario, scenarios, serve) parse their flags with: the
// shared commands' own, from sim/cli.
const (
	exitOK        = cli.ExitOK
	exitViolation = cli.ExitViolation
	exitUsage     = cli.ExitUsage
)

func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	return cli.FlagSet("simrun", name, synopsis, stderr)
}

func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) { return cli.ParseFlags(fs, args) }

func flagExit(err error) int { return cli.FlagExit(err) }

func usageError(stderr io.Writer, format string, args ...any) int {
	return cli.UsageError(stderr, "simrun", format, args...)
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
