package filestore

import (
	"io"
	"os"
)

// FS is the file system a Store does its I/O through: the operating system's (OSFS) in
// production, a simulated disk in the simulator. The seam is there so that the simulator runs
// this package's real code, its torn-tail cut and its write-then-sync order included, over a disk
// that can lose power, rather than a model of the store that could hide the store's own bugs.
type FS interface {
	// OpenFile opens the file at path for reading and appending, creating it (mode 0644) if it
	// does not exist.
	OpenFile(path string) (File, error)
	// SyncDir makes the entries of the directory dir durable, so that a file created in it
	// survives a crash.
	SyncDir(dir string) error
}

// File is an open session log, as the store uses it. Every write appends at the end of the file.
type File interface {
	io.ReaderAt
	// Write appends p at the end of the file. Written bytes are visible to reads at once, but
	// survive a power loss only once synced.
	io.Writer
	// Sync makes everything written so far durable (fsync).
	Sync() error
	// Truncate cuts the file to size bytes.
	Truncate(size int64) error
	// Lock takes an exclusive lock against other writers without waiting: an error wrapping
	// ErrLocked when another holds it. The lock belongs to the open file: Close drops it, and so
	// does the death of the process that holds it.
	Lock() error
	// Unlock drops the lock.
	Unlock() error
	// Close closes the file (dropping its lock).
	Close() error
}

// OSFS is the operating system's file system: the default.
type OSFS struct{}

var _ FS = OSFS{}

// OpenFile opens path with os.OpenFile, for reading and appending.
func (OSFS) OpenFile(path string) (File, error) {
	file, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return osFile{file}, nil
}

// SyncDir fsyncs the directory.
func (OSFS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Sizer is a File that can tell its size: Open reads it into one buffer of that size instead of
// growing one as it reads. Optional; the operating system's files have it.
type Sizer interface {
	// Size is the file's length in bytes now.
	Size() (int64, error)
}

// osFile is an *os.File with the platform's advisory lock (lock_unix.go, lock_other.go).
type osFile struct{ *os.File }

// Size is the file's length, from fstat.
func (f osFile) Size() (int64, error) {
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return info.Size(), nil
}

func (f osFile) Lock() error   { return lockFile(f.File) }
func (f osFile) Unlock() error { return unlockFile(f.File) }
