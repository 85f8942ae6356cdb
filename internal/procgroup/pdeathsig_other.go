//go:build unix && !linux

package procgroup

import "syscall"

// dieWithParent has nothing to ask outside Linux: a supervised child watches a pipe from its
// parent instead (see sim/cli's lifeline), and signals its group when the pipe closes.
func dieWithParent(*syscall.SysProcAttr) {}
