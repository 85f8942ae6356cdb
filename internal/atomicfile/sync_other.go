//go:build !unix

package atomicfile

// isSyncUnsupported: elsewhere (Windows) a folder cannot be opened for syncing at all, and any
// failure to sync it is taken as that.
func isSyncUnsupported(error) bool { return true }
