//go:build unix

package cli

import (
	"os"
	"syscall"
)

// stdoutClosed tells whether the process was started with its standard output closed (`>&-`).
// The Go runtime then opens /dev/null in its place, read-write, and every write succeeds into
// nothing; a shell's `> /dev/null`, which is the user's choice, opens it write-only.
func stdoutClosed() bool {
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, 1, syscall.F_GETFL, 0)
	if errno != 0 {
		return true
	}
	if flags&syscall.O_ACCMODE != syscall.O_RDWR {
		return false
	}
	out, err := os.Stdout.Stat()
	if err != nil {
		return true
	}
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(out, null)
}
