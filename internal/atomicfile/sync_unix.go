//go:build unix

package atomicfile

import (
	"errors"
	"syscall"
)

// isSyncUnsupported: a folder that refuses fsync (EINVAL on some file systems) cannot be synced.
func isSyncUnsupported(err error) bool {
	return errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP)
}
