package procgroup

import "syscall"

// dieWithParent asks the kernel to send the child SIGTERM when this process dies, however it
// dies (SIGKILL included): the child then stops as if interrupted. Pdeathsig follows the thread
// that started the child; Go ends a thread only when a goroutine locked to it returns, which
// turnsim's commands never do.
func dieWithParent(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGTERM }
