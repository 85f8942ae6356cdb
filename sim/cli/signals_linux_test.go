package cli_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// process is a pid with the time it started (so a reused pid is not taken for it).
type process struct {
	pid       int
	startedAt string
}

// procStat reads a process's parent, state and start time from /proc/PID/stat.
func procStat(pid int) (ppid int, state, startedAt string, ok bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, "", "", false
	}
	// The command name may hold spaces and parentheses: the fields follow the last ')'.
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	if len(fields) < 20 {
		return 0, "", "", false
	}
	ppid, _ = strconv.Atoi(fields[1])
	return ppid, fields[0], fields[19], true
}

// descendants lists every living process below pid.
func descendants(pid int) []process {
	entries, _ := os.ReadDir("/proc")
	children := map[int][]process{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, state, startedAt, ok := procStat(p); ok && state != "Z" {
			children[ppid] = append(children[ppid], process{p, startedAt})
		}
	}
	var all []process
	var walk func(int)
	walk = func(parent int) {
		for _, c := range children[parent] {
			all = append(all, c)
			walk(c.pid)
		}
	}
	walk(pid)
	return all
}

// alive tells whether p is still running (a zombie is dead: it only waits to be reaped).
func alive(p process) bool {
	_, state, startedAt, ok := procStat(p.pid)
	return ok && startedAt == p.startedAt && state != "Z"
}

// allEnded is the condition that none of ps is alive.
func allEnded(ps []process) func() bool {
	return func() bool {
		for _, p := range ps {
			if alive(p) {
				return false
			}
		}
		return true
	}
}

// waitFor polls cond every 10 ms until it holds or limit passes, and says whether it held.
func waitFor(limit time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(limit); ; time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// signalCase is a signal sent to the supervisor, and the exit it must give.
type signalCase struct {
	sig  syscall.Signal
	code int // -1: the supervisor itself dies by the signal
	says string
}

var signalCases = []signalCase{
	{syscall.SIGINT, 130, ""},
	{syscall.SIGTERM, 143, ""},
	{syscall.SIGHUP, 129, ""},
	{syscall.SIGQUIT, 3, "goroutine dump is above"},
	{syscall.SIGKILL, -1, ""},
}

// startAndStop starts b with args (which print progress from the first seed), waits until it is
// running seeds and the processes below it satisfy match, kills the supervisor with sig, and
// returns what was running below it, its exit code and its stderr. Its stderr is a file, so that
// a process left running cannot hold the test up (as a pipe's writer would), and the test kills
// whatever of it is left.
func startAndStop(t *testing.T, b binary, sig syscall.Signal, match func([]process) bool, args ...string) ([]process, int, string) {
	t.Helper()
	stderrFile, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	require.NoError(t, err)
	defer stderrFile.Close()
	stderr := func() string {
		data, _ := os.ReadFile(stderrFile.Name())
		return string(data)
	}
	cmd := exec.Command(b.path, args...)
	cmd.Dir = moduleRoot
	cmd.Stdout, cmd.Stderr = nil, stderrFile
	require.NoError(t, cmd.Start())
	var below []process
	t.Cleanup(func() {
		cmd.Process.Kill()
		for _, p := range below {
			if alive(p) {
				syscall.Kill(p.pid, syscall.SIGKILL)
			}
		}
	})
	started := waitFor(2*time.Minute, func() bool {
		below = descendants(cmd.Process.Pid)
		return strings.Contains(stderr(), " seeds") && match(below)
	})
	require.True(t, started, "the command's processes started: %v\n%s", below, stderr())
	require.NoError(t, cmd.Process.Signal(sig))
	cmd.Wait()
	return below, cmd.ProcessState.ExitCode(), stderr()
}

// Every signal that ends the supervisor ends every process below it within a second (the
// supervised command, its group, and what it started), with the usual exit code, and nothing is
// saved after it.
func TestASignalToTheSupervisorEndsEveryProcessBelowIt(t *testing.T) {
	simrun := binaries(t)[0]
	for _, c := range signalCases {
		t.Run(c.sig.String(), func(t *testing.T) {
			corpus := t.TempDir()
			below, code, stderr := startAndStop(t, simrun, c.sig, func(p []process) bool { return len(p) > 0 },
				"run", "-seeds", "100000000", "-corpus", corpus, "-progress", "always")
			assert.Equal(t, c.code, code, stderr)
			assert.Contains(t, stderr, c.says)
			assert.True(t, waitFor(time.Second, allEnded(below)), "a process of the group survived its supervisor: %v", below)
			entries, err := os.ReadDir(corpus)
			require.NoError(t, err)
			assert.Empty(t, entries, "nothing saved after the signal")
		})
	}
}

// An interrupt stops a -plant run: the command, the mutant build it runs and that build's own
// supervised child; the mutant's folder goes, and no corpus file is saved.
func TestASignalStopsAPlantedRunAndItsMutant(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a mutant")
	}
	usersim := binaries(t)[1]
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			corpus := t.TempDir()
			var mutantDir string
			below, _, stderr := startAndStop(t, usersim, sig, func(ps []process) bool {
				for _, p := range ps {
					exe, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(p.pid), "exe"))
					if err == nil && strings.Contains(exe, "usersim-plant-") {
						mutantDir = filepath.Dir(exe)
						return len(descendants(p.pid)) > 0 // the mutant build's own supervised child is up
					}
				}
				return false
			}, "run", "-plant", usersim.mutant, "-seeds", "100000000", "-corpus", corpus, "-progress", "always")
			assert.True(t, waitFor(time.Second, allEnded(below)), "a process survived: %v\n%s", below, stderr)
			assert.True(t, waitFor(time.Second, func() bool {
				_, err := os.Stat(mutantDir)
				return os.IsNotExist(err)
			}) || sig == syscall.SIGKILL, "the mutant's folder %s is removed", mutantDir)
			if sig == syscall.SIGKILL {
				os.RemoveAll(mutantDir) // a SIGKILLed command cannot clean up: the test does
			}
			entries, err := os.ReadDir(corpus)
			require.NoError(t, err)
			assert.Empty(t, entries, "nothing saved after the signal")
		})
	}
}

// serve ends cleanly on an interrupt to its supervisor: it stops listening, says what it served
// and exits 0, its child gone; a SIGQUIT still dumps and exits 3. (Before, the command's own
// stop won the race against serve's handler: exit 130 and no report.)
func TestServeEndsCleanlyOnAnInterrupt(t *testing.T) {
	simrun := binaries(t)[0]
	for _, c := range []signalCase{{syscall.SIGINT, 0, ""}, {syscall.SIGTERM, 0, ""}, {syscall.SIGQUIT, 3, "goroutine dump is above"}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			urlFile := filepath.Join(dir, "url")
			// The command's output goes to buffers read only after it ended (exec's goroutines
			// write them while it runs).
			var stdout, stderr bytes.Buffer
			// Far longer than the test waits for it: a serve that ignored the signal would time
			// out here, not stop by itself and pass.
			cmd := exec.Command(simrun.path, "serve", "-script", "demo", "-max-duration", "1h", "-url-file", urlFile)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Start())
			t.Cleanup(func() { cmd.Process.Kill() })
			if !waitFor(time.Minute, func() bool {
				data, err := os.ReadFile(urlFile)
				return err == nil && len(data) > 0
			}) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("serve wrote no URL: %s", stderr.String())
			}
			below := descendants(cmd.Process.Pid)
			require.NoError(t, cmd.Process.Signal(c.sig))
			ended := make(chan struct{})
			go func() { cmd.Wait(); close(ended) }()
			select {
			case <-ended:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-ended
				t.Fatalf("serve did not end within 30 s of %v: stdout %q, stderr %q", c.sig, stdout.String(), stderr.String())
			}
			assert.Equal(t, c.code, cmd.ProcessState.ExitCode(), "stdout: %s\nstderr: %s", stdout.String(), stderr.String())
			if c.code == 0 {
				assert.Contains(t, stdout.String(), "stopped after 0 requests")
			}
			assert.Contains(t, stderr.String(), c.says)
			assert.True(t, waitFor(time.Second, allEnded(below)), "a process of the group survived: %v", below)
		})
	}
}
