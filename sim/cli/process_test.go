//go:build unix

package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A crash no recover can catch (a panic on another goroutine) exits 3 through the supervisor,
// naming the command that reproduces it; a panic on the command's own goroutine too; bad usage
// stays 2. For a user's command as for simrun: the supervision is sim/cli's.
func TestTheSupervisorTellsACrashFromBadUsage(t *testing.T) {
	usersim := binaries(t)[1]
	breaking := []string{"USERSIM_BREAKING=1"}
	r := runBinary(t, usersim, "", breaking, "break-elsewhere")
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stderr, "panic: planted: a worker broke")
	assert.Contains(t, r.stderr, "usersim: internal error: usersim crashed")
	assert.Contains(t, r.stderr, "Reproduce: "+usersim.path+" break-elsewhere")

	r = runBinary(t, usersim, "", breaking, "break-here", "it's")
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stderr, "usersim: internal error: planted: an invariant broke")
	assert.Contains(t, r.stderr, "Reproduce: "+usersim.path+` break-here 'it'\''s'`)

	r = runBinary(t, usersim, "", breaking, "frobnicate")
	assert.Equal(t, 2, r.code)
	assert.NotContains(t, r.stderr, "internal error")
}

// A reader that goes away (simrun scenarios | head -1) ends the command with SIGPIPE's usual
// code, not as a bug.
func TestAReaderGoneAwayIsTheUsersDoing(t *testing.T) {
	for _, b := range binaries(t) {
		reader, writer, err := os.Pipe()
		require.NoError(t, err)
		require.NoError(t, reader.Close()) // gone before the first write
		cmd := exec.Command(b.path, "properties")
		var stderr strings.Builder
		cmd.Stdout, cmd.Stderr = writer, &stderr
		require.NoError(t, cmd.Start())
		writer.Close()
		cmd.Wait()
		assert.Equal(t, 128+13, cmd.ProcessState.ExitCode(), "%s: %s", b.name, stderr.String())
		assert.NotContains(t, stderr.String(), "internal error")
	}
}

// -plant and mutate work for a user's command as for simrun: the planted run finds the mutant
// with the agent's own property, prints a repro line naming the binary, saves the shrunk failure,
// and the saved file reproduces it; mutate catches the mutant with its property.
func TestPlantAndMutateOnAUsersCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a mutant")
	}
	usersim := binaries(t)[1]
	corpus := t.TempDir()
	r := runBinary(t, usersim, "", nil, "run", "-plant", usersim.mutant, "-seeds", "100", "-corpus", corpus, "-shrink-time", "5s")
	require.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stdout, "mutant             lookup-answers-one-order planted")
	assert.Contains(t, r.stdout, "lookup-answers-its-order ")
	repro := regexp.MustCompile(`reproduce: ` + regexp.QuoteMeta(usersim.path) + ` (repro -seed \d+ -plant lookup-answers-one-order)`).FindStringSubmatch(r.stderr)
	require.NotNil(t, repro, r.stderr)
	files, err := filepath.Glob(filepath.Join(corpus, "lookup-answers-its-order-seed*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, r.stderr)

	again := runBinary(t, usersim, "", nil, strings.Fields(repro[1])...)
	assert.Equal(t, 1, again.code, again.stderr)
	assert.Contains(t, again.stdout, "lookup-answers-its-order")
	saved := runBinary(t, usersim, "", nil, "repro", "-plant", usersim.mutant, files[0])
	assert.Equal(t, 1, saved.code, saved.stderr)
	assert.Contains(t, saved.stdout, "lookup-answers-its-order")
	clean := runBinary(t, usersim, "", nil, "repro", files[0])
	assert.Equal(t, 0, clean.code, "without the mutant the schedule passes: %s", clean.stdout)

	hunted := runBinary(t, usersim, "", nil, "mutate", "-seeds", "300", "-shrink-time", "2s")
	assert.Equal(t, 0, hunted.code, hunted.stdout+hunted.stderr)
	assert.Contains(t, hunted.stdout, "lookup-answers-one-order  lookup-answers-its-order")
	assert.Contains(t, hunted.stdout, "1 mutants: 1 killed by their property")
}

// simrun finds turnsim's mutants from any folder of the repository, a nested module's included
// (cmd/simrun and sim/wire have go.mod files of their own): before, the nearest go.mod was taken
// for the module that holds internal/mutants, and `plants` exited 2 there.
func TestSimrunFindsItsMutantsFromANestedModule(t *testing.T) {
	simrun := binaries(t)[0]
	for _, dir := range []string{"cmd/simrun", "sim/wire", "sim"} {
		r := runBinary(t, simrun, filepath.Join(moduleRoot, dir), nil, "plants")
		assert.Equal(t, 0, r.code, "from %s: %s", dir, r.stderr)
		assert.Contains(t, r.stdout, simrun.mutant, "from %s", dir)
	}
}

// The simrun these tests build links no provider SDK (-tags turnsim_nowire): it is built within
// the core's `go test ./...`, which must not compile one (issue 23). Its build record lists every
// module it links.
func TestTheTestedSimrunLinksNoProviderSDK(t *testing.T) {
	simrun := binaries(t)[0]
	out, err := exec.Command("go", "version", "-m", simrun.path).Output()
	require.NoError(t, err)
	require.Contains(t, string(out), "github.com/turnsim/turnsim", "the build record lists the modules")
	for _, sdk := range []string{"github.com/openai/", "github.com/anthropics/"} {
		assert.NotContains(t, string(out), sdk)
	}
}

// An input named by its descriptor (/dev/fd/3, as a shell's 3< file gives it) reaches the
// supervised child at its own number: the supervisor's two pipes come after it. They took fds 3
// and 4 from under it, and check read its own pipe forever (outside-style review).
func TestAnInputNamedByItsDescriptorIsRead(t *testing.T) {
	b := binaries(t)[0]
	for _, fd := range []int{3, 4} {
		logFile, err := os.Open("testdata/check/good/minimal.jsonl")
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, b.path, "check", fmt.Sprintf("/dev/fd/%d", fd))
		// ExtraFiles[i] is the child's fd 3+i: nil before it leaves that fd closed.
		cmd.ExtraFiles = make([]*os.File, fd-2)
		cmd.ExtraFiles[fd-3] = logFile
		out, err := cmd.Output()
		cancel()
		logFile.Close()
		require.NoError(t, err, "fd %d: %s", fd, out)
		assert.Equal(t, fmt.Sprintf("/dev/fd/%d: 10 events, ok\n", fd), string(out))
	}
	// As a flag's value too (-params=/dev/fd/3 hung after the first fix, which read whole
	// arguments only).
	params := filepath.Join(t.TempDir(), "params.json")
	require.NoError(t, os.WriteFile(params, []byte(`{"full-jitter": {"baseMs": 5}}`), 0o644))
	paramsFile, err := os.Open(params)
	require.NoError(t, err)
	defer paramsFile.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, b.path, "policy", "-policies", "full-jitter", "-agents", "3", "-seeds", "1", "-params=/dev/fd/3")
	cmd.ExtraFiles = []*os.File{paramsFile}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "full-jitter")
}

// An interrupted run says what it found: the seeds under way finish, and the summary of the seeds
// run is printed (with "interrupted": true), before simrun ends by the signal. It printed nothing
// before: the failures of minutes of seeds were lost to a Ctrl-C (outside-style review).
func TestAnInterruptedRunPrintsItsSummary(t *testing.T) {
	b := binaries(t)[0]
	cmd := exec.Command(b.path, "run", "-seeds", "100000000", "-json", "-corpus", "", "-progress", "never")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	time.Sleep(2 * time.Second) // long enough for some seeds on a loaded machine; the count is not asserted
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("an interrupted run did not end within 60 s")
	}
	status, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	require.True(t, ok)
	byTheSignal := cmd.ProcessState.ExitCode() == 128+int(syscall.SIGINT) || status.Signaled() && status.Signal() == syscall.SIGINT
	assert.True(t, byTheSignal, "ends as the signal ends it (exit 130): %v; stderr: %s", cmd.ProcessState, stderr.String())
	var summary struct {
		Seeds       int  `json:"seeds"`
		Interrupted bool `json:"interrupted"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout.String()), &summary), "stdout: %q", stdout.String())
	assert.True(t, summary.Interrupted)
	assert.Positive(t, summary.Seeds)
	assert.Less(t, summary.Seeds, 100000000)
	assert.Contains(t, stderr.String(), "interrupted after ")
}
