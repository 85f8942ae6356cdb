//go:build !unix || aix || (solaris && !illumos)

package filestore

import (
	"errors"
	"fmt"
	"os"
	"runtime"
)

// lockFile refuses: on this platform the store has no advisory lock that the kernel drops when
// its holder dies (a lock file would outlive a crash and lock the log for good), and a store
// without a lock cannot keep a second writer out. Better no store than a silently shared one.
func lockFile(*os.File) error {
	return fmt.Errorf("%w: the file store needs flock, which %s lacks", errors.ErrUnsupported, runtime.GOOS)
}

func unlockFile(*os.File) error { return nil }
