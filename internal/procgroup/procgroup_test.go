//go:build unix

package procgroup

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A signal the process was started ignoring (nohup's SIGHUP) stays ignored: Catchable leaves it
// out, so a command neither catches it nor passes it on.
func TestCatchableLeavesIgnoredSignalsOut(t *testing.T) {
	signal.Ignore(syscall.SIGUSR2)
	t.Cleanup(func() { signal.Reset(syscall.SIGUSR2) })
	assert.Equal(t, []os.Signal{syscall.SIGUSR1}, Catchable(syscall.SIGUSR1, syscall.SIGUSR2))
}

// A leader's group takes the signal as one: every process started in it ends, its children as
// well as the leader (a signal to the leader alone would leave them running).
func TestSignalGroupReachesTheWholeGroup(t *testing.T) {
	leader := exec.Command("/bin/sh", "-c", "sleep 60 & echo $!; sleep 60 & echo $!; wait")
	Leader(leader)
	stdout, err := leader.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, leader.Start())
	lines := bufio.NewScanner(stdout)
	var children []int
	for len(children) < 2 && lines.Scan() {
		pid, err := strconv.Atoi(strings.TrimSpace(lines.Text()))
		require.NoError(t, err)
		children = append(children, pid)
	}
	require.Len(t, children, 2, "the leader names its two children")
	require.NoError(t, SignalGroup(leader.Process.Pid, syscall.SIGTERM))
	err = leader.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	status := exit.Sys().(syscall.WaitStatus)
	assert.True(t, status.Signaled())
	for _, pid := range children {
		assert.Eventually(t, func() bool { return ended(pid) }, 5*time.Second, 10*time.Millisecond, "child %d still runs", pid)
	}
	assert.NoError(t, SignalGroup(leader.Process.Pid, syscall.SIGTERM), "a group with no process left is not an error")
}

// ended reports whether pid has ended: it is gone, or a zombie its new parent has yet to reap.
func ended(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	// pid (comm) state …: the state follows the last ')'.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) > 0 && fields[0] == "Z"
}
