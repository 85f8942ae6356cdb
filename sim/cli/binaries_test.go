//go:build unix

package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// binary is a command built on sim/cli, as its user runs it: turnsim's simrun, or a user's own
// command (internal/usersim: a support agent with a tool, a strategy, a policy family, a property
// and a mutant of its own).
type binary struct {
	name string
	path string
	// What is the agent's own, or turnsim's, in this command's output.
	property string // a property of the agent (its own, for a user's)
	family   string // a policy family fuzz-policy fuzzes and policy compares
	policies string // what policy compares
	mutant   string // a mutant -plant builds
}

// measureEnv makes the test binary the measuring process of measureChild.
const measureEnv = "CLI_TEST_MEASURE"

// TestMain lets the test binary stand between a test and a command it runs, to measure the
// command's memory (measureChild).
func TestMain(m *testing.M) {
	if os.Getenv(measureEnv) != "" {
		os.Exit(measureChild(os.Args[1:]))
	}
	code := m.Run()
	if builtDir != "" {
		os.RemoveAll(builtDir) // the binaries are some 30 MB each
	}
	os.Exit(code)
}

// measureChild runs the command args as its child, with its own standard files, writes the
// child's peak resident memory on fd 3 and exits with the child's code (128+signal for one a
// signal ended).
//
// Why a process in between: Go starts a child with vfork, and Linux counts the memory the child
// shared before its exec into its peak, so a command the test process started directly would be
// charged the test process's own gigabyte. This process is small when it starts the command.
func measureChild(args []string) int {
	report := os.NewFile(3, "rss")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, measureEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			fmt.Fprintln(os.Stderr, err)
			return 125
		}
	}
	var peak int64
	if usage, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		peak = maxRSSBytes(usage)
	}
	fmt.Fprintf(report, "%d\n", peak)
	if status, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && status.Signaled() {
		return 128 + int(status.Signal())
	}
	return cmd.ProcessState.ExitCode()
}

var (
	buildOnce sync.Once
	built     []binary
	builtDir  string
	buildErr  error
)

// moduleRoot is the turnsim module's root, seen from this package's folder.
const moduleRoot = "../.."

// binaries builds simrun and usersim once per test binary.
func binaries(t *testing.T) []binary {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cli-binaries-")
		if err != nil {
			buildErr = err
			return
		}
		builtDir = dir
		built = []binary{
			{name: "simrun", path: filepath.Join(dir, "simrun"), property: "durable-before-wait", family: "full-jitter", policies: "seed-default,full-jitter", mutant: "wait-before-retry-record"},
			{name: "usersim", path: filepath.Join(dir, "usersim"), property: "lookup-answers-its-order", family: "support-backoff", policies: "agent,support-backoff", mutant: "lookup-answers-one-order"},
		}
		// simrun without the wire (cmd/simrun's wire.go): compiling its SDKs would be most of the
		// core's cold `go test ./...` (README "CI cost"); the wire's own module tests simrun with it.
		for i, build := range [][]string{{"-tags", "turnsim_nowire", "./cmd/simrun"}, {"./sim/cli/internal/usersim"}} {
			pkg := build[len(build)-1]
			cmd := exec.Command("go", append([]string{"build", "-o", built[i].path}, build...)...)
			cmd.Dir = moduleRoot
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = &buildError{pkg: pkg, err: err, out: string(out)}
				return
			}
		}
	})
	require.NoError(t, buildErr)
	return built
}

type buildError struct {
	pkg, out string
	err      error
}

func (e *buildError) Error() string { return "go build " + e.pkg + ": " + e.err.Error() + "\n" + e.out }

// result is one run of a binary as a process.
type result struct {
	code           int
	stdout, stderr string
	// maxRSSBytes is the process's peak resident memory (the supervisor's child included), when
	// measured (runWithStdout).
	maxRSSBytes int64
	wall        time.Duration
}

// runBinary runs b with args in dir (the module root when ""), with env added, and waits.
func runBinary(t *testing.T, b binary, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(b.path, args...)
	cmd.Dir = dir
	if dir == "" {
		cmd.Dir = moduleRoot
	}
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	err := cmd.Run()
	r := result{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String(), wall: time.Since(began)}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("%s %v did not run: %v", b.name, args, err)
	}
	return r
}
