//go:build unix

package procgroup

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

// Forwarded are the signals a supervisor passes on to its child's group: those that stop a
// process (and SIGQUIT, which dumps its goroutines), and the user's own two.
var Forwarded = []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM}

// Stopping are the signals that stop a command: it passes them on and cleans up first.
var Stopping = []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM}

// Quit is SIGQUIT: a goroutine dump, then exit 3; Terminate is what stops the processes a
// command started when it stops for another reason.
var (
	Quit      os.Signal = syscall.SIGQUIT
	Terminate os.Signal = syscall.SIGTERM
)

// Leader makes cmd start as the leader of a process group of its own, and die with this process
// where the platform can say so (Linux).
func Leader(cmd *exec.Cmd) {
	attr := sysProcAttr(cmd)
	attr.Setpgid = true
	dieWithParent(attr)
}

// Follower makes cmd stay in this process's group and die with this process where the platform
// can say so (Linux); elsewhere the group's signal reaches it.
func Follower(cmd *exec.Cmd) {
	dieWithParent(sysProcAttr(cmd))
}

func sysProcAttr(cmd *exec.Cmd) *syscall.SysProcAttr {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	return cmd.SysProcAttr
}

// SignalGroup sends sig to the process group led by pid. A group with no process left is not
// an error.
func SignalGroup(pid int, sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return errors.New("procgroup: not a unix signal")
	}
	if err := syscall.Kill(-pid, s); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// SignalOwnGroup sends sig to this process's group when this process leads it (a supervised
// child does), reaching everything it started; a process that does not lead its group (its
// group is its shell's) sends nothing.
func SignalOwnGroup(sig os.Signal) {
	if pid := os.Getpid(); syscall.Getpgrp() == pid {
		SignalGroup(pid, sig)
	}
}

// Reraise ends this process by sig, as if nothing had caught it, so that its parent sees the
// usual "killed by sig" (128+sig); if the signal does not end it, it exits 128+sig itself.
func Reraise(sig os.Signal) {
	signal.Reset(sig)
	if s, ok := sig.(syscall.Signal); ok {
		syscall.Kill(os.Getpid(), s)
		time.Sleep(reraiseGrace)
		os.Exit(128 + int(s))
	}
	os.Exit(1)
}
