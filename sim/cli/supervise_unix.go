//go:build unix

package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/turnsim/turnsim/internal/procgroup"
)

// supervise runs the command in a child process and returns the exit code to leave with.
// supervised is false when this process must run the command itself: it is the child, or no
// child could be started.
func supervise(args []string, name, self string) (code int, supervised bool) {
	if value := os.Getenv(supervisedEnv); value != "" {
		os.Unsetenv(supervisedEnv)
		// Set by a supervisor, the variable names it and the fds of its two pipes. Set by hand
		// (SIMRUN_SUPERVISED=1), it only says to run without one, and the fds are whatever the
		// caller left there, not to be read or written.
		if code, life, ok := parseSupervisorMark(value, os.Getppid()); ok {
			exitCodeFD, lifelineFD = code, life
			supervisedChild = true
			watchLifeline()
		}
		return 0, false
	}
	executable, err := os.Executable()
	if err != nil {
		return 0, false
	}
	codeReader, codeWriter, err := os.Pipe()
	if err != nil {
		return 0, false
	}
	lifeReader, lifeWriter, err := os.Pipe()
	if err != nil {
		codeReader.Close()
		codeWriter.Close()
		return 0, false
	}
	child := exec.Command(executable, args...)
	child.Stdin, child.Stdout, child.Stderr = os.Stdin, os.Stdout, os.Stderr
	// The files the arguments name by descriptor (/dev/fd/3, a shell's 3< file) keep their
	// numbers in the child; the two pipes come after them (they took fds 3 and 4 from under
	// such an argument, and the child read its own pipe forever).
	child.ExtraFiles = append(passedThrough(args), codeWriter, lifeReader)
	codeFD, lifeFD := 2+len(child.ExtraFiles)-1, 2+len(child.ExtraFiles)
	child.Env = append(os.Environ(), supervisedEnv+"="+supervisorMark(os.Getpid(), codeFD, lifeFD))
	procgroup.Leader(child)
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, procgroup.Catchable(procgroup.Forwarded...)...)
	defer signal.Stop(signals)
	runtime.LockOSThread() // the child's Pdeathsig follows the thread that starts it: keep it
	defer runtime.UnlockOSThread()
	if err := child.Start(); err != nil {
		codeWriter.Close()
		lifeReader.Close()
		codeReader.Close()
		lifeWriter.Close()
		return 0, false
	}
	codeWriter.Close()
	lifeReader.Close()
	// lifeWriter stays open, unwritten, for as long as this process lives.
	var quit atomic.Bool
	go func() {
		for s := range signals {
			if s == procgroup.Quit {
				quit.Store(true)
				child.Process.Signal(s) // the child dumps its goroutines and stops its group
				continue
			}
			procgroup.SignalGroup(child.Process.Pid, s)
		}
	}()
	reported := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(codeReader).ReadString('\n')
		reported <- strings.TrimSpace(line)
	}()
	waitErr := child.Wait()
	// Whatever the child left of its group (it crashed while a mutant ran) goes with it.
	procgroup.SignalGroup(child.Process.Pid, syscall.SIGKILL)
	lifeWriter.Close()
	if n, err := strconv.Atoi(<-reported); err == nil {
		return n, true
	}
	if quit.Load() {
		fmt.Fprintln(os.Stderr, "quit (SIGQUIT)")
		return exitInternal, true
	}
	return crashed(args, name, self, waitErr), true
}

// supervisorMark is the value of supervisedEnv a supervisor of process id pid gives its child,
// whose fds codeFD and lifeFD are the supervisor's pipes.
func supervisorMark(pid, codeFD, lifeFD int) string {
	return fmt.Sprintf("supervisor-%d:%d:%d", pid, codeFD, lifeFD)
}

// parseSupervisorMark reads supervisorMark's value, when the supervisor is ppid.
func parseSupervisorMark(value string, ppid int) (codeFD, lifeFD int, ok bool) {
	var pid int
	if n, err := fmt.Sscanf(value, "supervisor-%d:%d:%d", &pid, &codeFD, &lifeFD); err != nil || n != 3 || pid != ppid || codeFD < 3 || lifeFD < 3 {
		return 0, 0, false
	}
	return codeFD, lifeFD, true
}

// fdArgument finds a file named by its descriptor in an argument, as a flag's value too
// (-params=/dev/fd/3).
var fdArgument = regexp.MustCompile(`/(?:dev|proc/self)/fd/(\d+)\b`)

// passedThrough is the child's ExtraFiles for the descriptors 3 and above that args name
// (/dev/fd/N, /proc/self/fd/N) and this process has open: each at its own number, nil between.
// A descriptor is wrapped in a File only once it is known open, and once: a File's finalizer
// closes its number.
func passedThrough(args []string) []*os.File {
	var files []*os.File
	for _, a := range args {
		for _, m := range fdArgument.FindAllStringSubmatch(a, -1) {
			fd, err := strconv.Atoi(m[1])
			if err != nil || fd < 3 || fd > passedThroughMax || fd-3 < len(files) && files[fd-3] != nil {
				continue
			}
			var st syscall.Stat_t
			if syscall.Fstat(fd, &st) != nil {
				continue // not open here: the child will say so when it opens the argument
			}
			for len(files) < fd-2 {
				files = append(files, nil)
			}
			files[fd-3] = os.NewFile(uintptr(fd), m[0])
		}
	}
	return files
}

// passedThroughMax bounds the descriptor numbers passed through: a child gets as many as the
// largest one named.
const passedThroughMax = 255

// watchLifeline stops the child when its supervisor is gone: the pipe's only writer, the
// supervisor, never writes, so a read returns only when the supervisor's end closes.
func watchLifeline() {
	f := os.NewFile(uintptr(lifelineFD), "lifeline")
	if f == nil {
		return
	}
	if info, err := f.Stat(); err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		return // not the supervisor's pipe: nothing to watch
	}
	go func() {
		io.Copy(io.Discard, f)
		stop(syscall.SIGTERM)
	}()
}

// stoppingSignals are the signals that stop the command: the stopping ones and SIGQUIT (its dump
// and exit 3), those the process was not started ignoring.
func stoppingSignals() []os.Signal {
	return procgroup.Catchable(append(procgroup.Stopping, procgroup.Quit)...)
}

// crashed reports a child that ended without choosing an exit code: ended by a signal from
// outside (the usual 128+signal, not a bug), or crashed (exit 3, a bug).
func crashed(args []string, name, self string, waitErr error) int {
	var exit *exec.ExitError
	if errors.As(waitErr, &exit) {
		if status, ok := exit.Sys().(syscall.WaitStatus); ok && status.Signaled() {
			switch sig := status.Signal(); sig {
			case syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE:
				// Interrupted, terminated, or its reader went away (simrun … | head): the
				// user's doing, not a bug.
				return 128 + int(sig)
			case syscall.SIGKILL:
				fmt.Fprintf(os.Stderr, "%s: killed (SIGKILL: by the kernel's out-of-memory killer, or kill -9)\n", name)
				return 128 + int(sig)
			default:
				fmt.Fprintf(os.Stderr, "%s: internal error: %s was killed by %v\n", name, name, sig)
				return internalExit(args, name, self)
			}
		}
	}
	fmt.Fprintf(os.Stderr, "%s: internal error: %s crashed (%v; its trace is above)\n", name, name, waitErr)
	return internalExit(args, name, self)
}

func internalExit(args []string, name, self string) int {
	fmt.Fprintf(os.Stderr, "This is a bug in %s, not in your input or in the harness.\nReproduce: %s\nPlease report it with this message.\n", name, reproduceLine(self, args))
	return exitInternal
}
