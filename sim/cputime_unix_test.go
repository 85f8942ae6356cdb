//go:build unix

package sim

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system) the whole process has used so far: what a schedule
// costs on a shared machine, where wall time swings with the neighbours' load.
func processCPU() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
