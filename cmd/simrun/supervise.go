package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

// supervisedEnv marks the child process that runs the command under a supervisor.
const supervisedEnv = "SIMRUN_SUPERVISED"

// supervisedChild is set in the child: it reports its exit code on exitCodeFD. The variable is
// taken out of the child's environment at once, so a process the child starts (a mutant build of
// simrun, for mutate or -plant) supervises itself rather than write to a pipe it does not have.
var supervisedChild bool

// supervise runs simrun's command in a child process and returns the exit code to leave with.
//
// Why: a panic on a worker goroutine, or a fatal error of the Go runtime (out of memory,
// concurrent map writes), cannot be recovered in-process, and the runtime exits with code 2, the
// code of bad usage. The child reports the exit code it chose on a pipe (exitCodeFD) just before
// it exits; a child that ends without reporting one crashed, and the supervisor says that it is a
// bug and exits 3. The child shares stdin, stdout and stderr, so its output (the crash's stack
// included) reaches the user unchanged. supervised is false when the process must run the command
// itself: it is the child, or no child could be started (a platform without inherited pipes).
func supervise(args []string) (code int, supervised bool) {
	if os.Getenv(supervisedEnv) != "" {
		supervisedChild = true
		os.Unsetenv(supervisedEnv)
		return 0, false
	}
	executable, err := os.Executable()
	if err != nil {
		return 0, false
	}
	reader, writer, err := os.Pipe()
	if err != nil {
		return 0, false
	}
	child := exec.Command(executable, args...)
	child.Stdin, child.Stdout, child.Stderr = os.Stdin, os.Stdout, os.Stderr
	child.ExtraFiles = []*os.File{writer} // the child's fd 3: exitCodeFD
	child.Env = append(os.Environ(), supervisedEnv+"=1")
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	if err := child.Start(); err != nil {
		writer.Close()
		reader.Close()
		return 0, false
	}
	writer.Close()
	go func() { // a batch scheduler's SIGTERM goes to this process alone: pass it on
		for s := range signals {
			child.Process.Signal(s)
		}
	}()
	reported := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(reader).ReadString('\n')
		reported <- strings.TrimSpace(line)
	}()
	waitErr := child.Wait()
	if n, err := strconv.Atoi(<-reported); err == nil {
		return n, true
	}
	return crashed(args, waitErr), true
}

// crashed reports a child that ended without choosing an exit code: ended by a signal from
// outside (the usual 128+signal, not a bug), or crashed (exit 3, a bug).
func crashed(args []string, waitErr error) int {
	var exit *exec.ExitError
	if errors.As(waitErr, &exit) {
		if status, ok := exit.Sys().(syscall.WaitStatus); ok && status.Signaled() {
			switch sig := status.Signal(); sig {
			case syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE:
				// Interrupted, terminated, or its reader went away (simrun … | head): the
				// user's doing, not a bug.
				return 128 + int(sig)
			case syscall.SIGKILL:
				fmt.Fprintln(os.Stderr, "simrun: killed (SIGKILL: by the kernel's out-of-memory killer, or kill -9)")
				return 128 + int(sig)
			default:
				fmt.Fprintf(os.Stderr, "simrun: internal error: simrun was killed by %v\n", sig)
				return internalExit(args)
			}
		}
	}
	fmt.Fprintf(os.Stderr, "simrun: internal error: simrun crashed (%v; its trace is above)\n", waitErr)
	return internalExit(args)
}

func internalExit(args []string) int {
	fmt.Fprintf(os.Stderr, "This is a bug in simrun, not in your input or in the harness.\nReproduce: %s\nPlease report it with this message.\n", reproduceLine(args))
	return exitInternal
}
