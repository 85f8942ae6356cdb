package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// FlagSet returns the flag set of one of program's commands: it reports its own errors, and on
// -h its usage ("usage: PROGRAM SYNOPSIS" and the flags), on stderr. For Options.Commands.
func FlagSet(program, name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s %s\n", program, synopsis)
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintln(stderr, "\nflags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// ParseFlags parses flags that may stand before, between or after positional arguments, and
// returns the positional ones ("--" ends the flags). A bad flag is reported on stderr by the
// flag set; -h prints the flag set's usage and returns flag.ErrHelp.
func ParseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
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

// FlagExit turns a flag-parsing error into an exit code: -h is not an error.
func FlagExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	return ExitUsage
}

// UsageError prints "PROGRAM: message" on stderr, on one line, and returns ExitUsage.
func UsageError(stderr io.Writer, program, format string, args ...any) int {
	fmt.Fprintf(stderr, "%s: %s\n", program, strings.TrimSuffix(fmt.Sprintf(format, args...), "\n"))
	return ExitUsage
}

// flagSet is FlagSet for one of the shared commands.
func (c *cli) flagSet(name, synopsis string) *flag.FlagSet {
	return FlagSet(c.name, name, synopsis, c.stderr)
}

// usageError prints a usage error naming what is wrong and returns exit code 2.
func (c *cli) usageError(format string, args ...any) int {
	return UsageError(c.stderr, c.name, format, args...)
}

// parseNoArguments parses the flags of a command that takes no arguments. ok is false when the
// command must stop and exit with code (a bad flag, -h, or an argument it does not take).
func (c *cli) parseNoArguments(fs *flag.FlagSet, args []string) (code int, ok bool) {
	return ParseNoArguments(c.name, fs, args, c.stderr)
}

// ParseNoArguments parses the flags of one of program's commands that takes no arguments. ok is
// false when the command must stop and exit with code (a bad flag, -h, or an argument it does
// not take, reported on stderr). For Options.Commands.
func ParseNoArguments(program string, fs *flag.FlagSet, args []string, stderr io.Writer) (code int, ok bool) {
	positional, err := ParseFlags(fs, args)
	if err != nil {
		return FlagExit(err), false
	}
	if len(positional) > 0 {
		return UsageError(stderr, program, "%s takes no arguments, got %q", fs.Name(), strings.Join(positional, " ")), false
	}
	return ExitOK, true
}

// setFlags names the flags given on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}
