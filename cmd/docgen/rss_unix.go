//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSSMB is the process's peak resident set, in MB (Linux reports KiB, macOS bytes).
func maxRSSMB(state *os.ProcessState) float64 {
	usage, ok := state.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return float64(usage.Maxrss) / 1e6
	}
	return float64(usage.Maxrss) * 1024 / 1e6
}
