//go:build unix && !aix && !(solaris && !illumos)

package filestore

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on file without waiting. flock locks belong to the
// open file description, so a second Open of the same file is refused whether it comes from
// another process or from this one; the kernel drops the lock when the holder dies, so a crash
// never leaves a stale lock behind.
func lockFile(file *os.File) error {
	raw, err := file.SyscallConn()
	if err != nil {
		return err
	}
	var lockErr error
	if err := raw.Control(func(fd uintptr) {
		for {
			lockErr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
			if lockErr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if errors.Is(lockErr, syscall.EWOULDBLOCK) {
		return ErrLocked
	}
	return lockErr
}

// unlockFile releases the lock (closing the file would too).
func unlockFile(file *os.File) error {
	raw, err := file.SyscallConn()
	if err != nil {
		return err
	}
	var unlockErr error
	if err := raw.Control(func(fd uintptr) {
		unlockErr = syscall.Flock(int(fd), syscall.LOCK_UN)
	}); err != nil {
		return err
	}
	return unlockErr
}
