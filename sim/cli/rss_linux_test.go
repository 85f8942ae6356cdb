package cli_test

import "syscall"

// maxRSSBytes reads a child's peak resident memory: Linux reports kilobytes, of the largest
// process among the child and the children it waited for (the supervised command).
func maxRSSBytes(u *syscall.Rusage) int64 { return u.Maxrss * 1024 }
