//go:build unix && !linux

package cli_test

import "syscall"

// maxRSSBytes reads a child's peak resident memory: bytes on the BSDs and macOS.
func maxRSSBytes(u *syscall.Rusage) int64 { return u.Maxrss }
