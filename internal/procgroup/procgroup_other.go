//go:build !unix

package procgroup

import (
	"os"
	"os/exec"
)

// Forwarded, Stopping, Quit and Terminate: an interrupt only, where there are no unix signals.
var (
	Forwarded = []os.Signal{os.Interrupt}
	Stopping  = []os.Signal{os.Interrupt}
	Quit      os.Signal
	Terminate os.Signal = os.Interrupt
)

// Leader and Follower leave cmd as it is: no process groups here.
func Leader(*exec.Cmd)   {}
func Follower(*exec.Cmd) {}

// SignalGroup signals the one process.
func SignalGroup(pid int, sig os.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Signal(sig)
}

// SignalOwnGroup has no group to signal.
func SignalOwnGroup(os.Signal) {}

// Reraise exits as an interrupted process would.
func Reraise(os.Signal) { os.Exit(130) }
