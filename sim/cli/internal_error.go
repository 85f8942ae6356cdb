package cli

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"
)

// workingOn records the seed the command is working on, for the internal-error message.
func (c *cli) workingOn(seed int64) { c.seed.Store(&seed) }

// recoverInternal turns a panic of the command into exit code 3 and a message saying it is a bug,
// with the seed it was on (when there is one), the command that reproduces it and the stack: a
// crash must never pass for bad usage (2) or for a finding (1).
func (c *cli) recoverInternal(args []string, code *int) {
	recovered := recover()
	if recovered == nil {
		return
	}
	fmt.Fprintf(c.stderr, "%s: internal error: %v\n", c.name, recovered)
	fmt.Fprintf(c.stderr, "This is a bug in %s, not in your input or in the harness.\n", c.name)
	if seed := c.seed.Load(); seed != nil {
		fmt.Fprintf(c.stderr, "It happened on seed %d.\n", *seed)
	}
	fmt.Fprintf(c.stderr, "Reproduce: %s\nPlease report it with this message.\n\n%s", reproduceLine(c.self, args), debug.Stack())
	*code = exitInternal
}

// reproduceLine is the command line that ran, quoted for a shell.
func reproduceLine(self string, args []string) string {
	parts := []string{self}
	for _, a := range args {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

// shellQuote quotes s for a POSIX shell when it holds anything but safe characters.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=/.,:+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// exitCodeFD is the file descriptor on which a supervised child reports the exit code it chose;
// a child that dies without reporting one crashed (see supervise.go).
var exitCodeFD = 3

// reportExit tells the supervising process, if any, which exit code the command chose.
func reportExit(code int) {
	if !supervisedChild {
		return
	}
	f := os.NewFile(uintptr(exitCodeFD), "exit-code")
	if f == nil {
		return
	}
	if info, err := f.Stat(); err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		return // not the supervisor's pipe (the variable was set by hand): write nothing there
	}
	fmt.Fprintf(f, "%d\n", code)
	f.Close()
}
