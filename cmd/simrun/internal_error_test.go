package main

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// asMainEnv makes the test binary act as simrun's main (see TestMain), so that tests can run the
// real process, supervisor and all.
const asMainEnv = "SIMRUN_TEST_AS_MAIN"

// TestMain lets the test binary stand in for simrun: with asMainEnv set it runs main, with two
// hidden commands that break the way a bug would, on the main goroutine and on another one.
func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) != "" {
		hiddenCommands = append(hiddenCommands, breakingCommands()...)
		main()
	}
	os.Exit(m.Run())
}

func breakingCommands() []command {
	return []command{
		{"break-here", "", func([]string, io.Writer, io.Writer) int {
			workingOn(42)
			panic("planted: an invariant broke")
		}},
		{"break-elsewhere", "", func([]string, io.Writer, io.Writer) int {
			done := make(chan struct{})
			go func() { panic("planted: a worker broke") }()
			<-done
			return exitOK
		}},
	}
}

// A panic in a command exits 3, says it is a bug, and names the seed and the command.
func TestPanicIsAnInternalErrorNotAUsageError(t *testing.T) {
	hiddenCommands = breakingCommands()
	t.Cleanup(func() { hiddenCommands = nil; currentSeed.Store(nil) })
	code, _, errOut := simrun("break-here", "-x", "it's")
	assert.Equal(t, exitInternal, code)
	assert.Contains(t, errOut, "simrun: internal error: planted: an invariant broke")
	assert.Contains(t, errOut, "This is a bug in simrun")
	assert.Contains(t, errOut, "It happened on seed 42.")
	assert.Contains(t, errOut, `Reproduce: go run ./cmd/simrun break-here -x 'it'\''s'`)
}

// A crash no recover can catch (a panic on another goroutine) still exits 3, through the
// supervisor; the child's own exit codes pass through unchanged.
func TestSupervisorTellsACrashFromBadUsage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary as simrun")
	}
	simrunProcess := func(args ...string) (int, string) {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), asMainEnv+"=1")
		out, _ := cmd.CombinedOutput()
		return cmd.ProcessState.ExitCode(), string(out)
	}
	code, out := simrunProcess("break-elsewhere")
	assert.Equal(t, exitInternal, code, out)
	assert.Contains(t, out, "panic: planted: a worker broke")
	assert.Contains(t, out, "simrun: internal error: simrun crashed")
	assert.Contains(t, out, "Reproduce: go run ./cmd/simrun break-elsewhere")

	code, out = simrunProcess("break-here")
	assert.Equal(t, exitInternal, code, out)
	assert.Contains(t, out, "It happened on seed 42.")

	code, out = simrunProcess("frobnicate")
	require.Equal(t, exitUsage, code, out)
	assert.NotContains(t, out, "internal error")
	code, _ = simrunProcess("faults")
	assert.Equal(t, exitOK, code)
}

// A reader that goes away (simrun scenarios | head -1) ends simrun with SIGPIPE's usual code,
// not as a bug.
func TestSupervisorTakesABrokenPipeForTheUsersDoing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary as simrun")
	}
	reader, writer, err := os.Pipe()
	require.NoError(t, err)
	require.NoError(t, reader.Close()) // gone before the first write
	cmd := exec.Command(os.Args[0], "scenario", "drain")
	cmd.Env = append(os.Environ(), asMainEnv+"=1")
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = writer, &stderr
	require.NoError(t, cmd.Start())
	writer.Close()
	cmd.Wait()
	assert.Equal(t, 128+13, cmd.ProcessState.ExitCode(), stderr.String())
	assert.NotContains(t, stderr.String(), "internal error")
}
