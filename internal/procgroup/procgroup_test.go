//go:build unix

package procgroup

import (
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"

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

// A leader's group takes the signal as one: every process started in it ends.
func TestSignalGroupReachesTheWholeGroup(t *testing.T) {
	leader := exec.Command("/bin/sh", "-c", "sleep 60 & sleep 60 & wait")
	Leader(leader)
	require.NoError(t, leader.Start())
	require.NoError(t, SignalGroup(leader.Process.Pid, syscall.SIGTERM))
	err := leader.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	status := exit.Sys().(syscall.WaitStatus)
	assert.True(t, status.Signaled())
	assert.NoError(t, SignalGroup(leader.Process.Pid, syscall.SIGTERM), "a group with no process left is not an error")
}
