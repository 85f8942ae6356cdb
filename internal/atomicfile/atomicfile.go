// Package atomicfile writes the files turnsim's commands produce (logs, schedules, timelines,
// charts, corpus files) so that a reader never sees half of one: each is written to a temporary
// file beside its target, synced, and renamed over it (or linked into place when it must be
// new), and the folder is synced, so that a kill or a power cut leaves either the old file or
// the whole new one, never a 0-byte file under the final name. A target that exists and is not
// a regular file (a device, a FIFO, a symlink, a folder) is refused, never replaced.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// File is one file to write: its path and its whole content.
type File struct {
	Path string
	Data []byte
}

// perm is the mode of every file written: what os.WriteFile gives under the usual umask.
const perm = 0o644

// NotRegularError is a target that exists and is not a regular file: replacing it would
// destroy what it is (a device node, a FIFO another program reads, a symlink's meaning).
type NotRegularError struct {
	Path string
	Kind string // "a symlink", "a device", "a FIFO", "a folder", "a socket", "not a regular file"
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("atomicfile: %s is %s, not a regular file: refusing to replace it", e.Path, e.Kind)
}

// ErrFrozen is returned for a write asked for after Freeze.
var ErrFrozen = errors.New("atomicfile: the process is stopping: no file is written any more")

// commits orders the renames and links that make files visible against Freeze: each holds it
// for reading while it commits, Freeze takes it for writing and never gives it back.
var commits sync.RWMutex

// Freeze stops every later commit of this process: a write in progress finishes (Freeze waits
// for it), and every write after returns ErrFrozen. A command calls it when interrupted, so that
// no file (a corpus file above all) appears after the user asked it to stop.
func Freeze() {
	commits.Lock()
	// Never unlocked: a commit after this would have to take the lock, and must not.
}

// commit runs fn, which makes a file visible, unless the process is frozen.
func commit(fn func() error) error {
	if !commits.TryRLock() {
		return ErrFrozen // frozen, or freezing
	}
	defer commits.RUnlock()
	return fn()
}

// CheckTarget refuses, before anything is written, a target that exists and is not a regular
// file, and one whose folder does not exist or takes no new file. A missing target is fine: it
// will be created.
func CheckTarget(path string) error {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		dir := filepath.Dir(path)
		if d, err := os.Stat(dir); err != nil || !d.IsDir() {
			return fmt.Errorf("atomicfile: cannot write %s: its folder %s does not exist", path, dir)
		}
	case err != nil:
		return fmt.Errorf("atomicfile: cannot write %s: %w", path, err)
	case !info.Mode().IsRegular():
		return &NotRegularError{Path: path, Kind: kind(info.Mode())}
	}
	// The file is written beside its target and renamed over it: the folder must take a new file
	// (a read-only folder refused it only after the work was done, and the result was lost).
	if err := ProbeFolder(filepath.Dir(path)); err != nil {
		return fmt.Errorf("atomicfile: cannot write %s: its folder takes no new file: %w", path, err)
	}
	return nil
}

// ProbeFolder creates and removes a hidden empty file in dir: the one sure test that the folder
// takes new files (permissions, read-only mounts, sysfs).
func ProbeFolder(dir string) error {
	probe, err := os.CreateTemp(dir, ".atomicfile-probe-*")
	if err != nil {
		return err
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// kind names a file mode that is not a regular file's.
func kind(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeSymlink != 0:
		return "a symlink"
	case mode.IsDir():
		return "a folder"
	case mode&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case mode&fs.ModeDevice != 0:
		return "a device"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// Write writes data to path atomically, replacing a regular file there.
func Write(path string, data []byte) error {
	return WriteAll([]File{{path, data}})
}

// WriteAll writes every file to a synced temporary file beside it first, and renames them into
// place only once all are written: a failure leaves none of them half-written, and none written
// alone. Each target is checked (CheckTarget) before anything is written.
func WriteAll(files []File) error {
	for _, f := range files {
		if err := CheckTarget(f.Path); err != nil {
			return err
		}
	}
	temps := make([]string, 0, len(files))
	defer func() {
		for _, t := range temps {
			os.Remove(t) // renamed ones are gone already
		}
	}()
	for _, f := range files {
		tmp, err := writeTemp(f)
		if err != nil {
			return err
		}
		temps = append(temps, tmp)
	}
	return commit(func() error {
		for i, f := range files {
			if err := CheckTarget(f.Path); err != nil { // it may have changed while we wrote
				return err
			}
			if err := os.Rename(temps[i], f.Path); err != nil {
				return fmt.Errorf("atomicfile: cannot write %s: %w", f.Path, unwrapPath(err))
			}
			if err := syncDir(filepath.Dir(f.Path)); err != nil {
				return fmt.Errorf("atomicfile: cannot write %s: syncing its folder: %w", f.Path, unwrapPath(err))
			}
		}
		return nil
	})
}

// CreateNew writes data to path, which must not exist: it fails with an error that satisfies
// errors.Is(err, fs.ErrExist) when it does, and never replaces anything. The file appears whole
// or not at all (written and synced beside it, then linked into place).
func CreateNew(path string, data []byte) error {
	if err := CheckTarget(path); err != nil {
		return err
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("atomicfile: %s: %w", path, fs.ErrExist)
	}
	tmp, err := writeTemp(File{path, data})
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	return commit(func() error {
		err := os.Link(tmp, path)
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("atomicfile: %s: %w", path, fs.ErrExist)
		}
		if err != nil { // a file system without hard links: a rename, the target checked just before
			if _, statErr := os.Lstat(path); statErr == nil {
				return fmt.Errorf("atomicfile: %s: %w", path, fs.ErrExist)
			}
			if err = os.Rename(tmp, path); err != nil {
				return fmt.Errorf("atomicfile: cannot write %s: %w", path, unwrapPath(err))
			}
		}
		if err := syncDir(filepath.Dir(path)); err != nil {
			return fmt.Errorf("atomicfile: cannot write %s: syncing its folder: %w", path, unwrapPath(err))
		}
		return nil
	})
}

// writeTemp writes f's data to a new temporary file in f's folder, synced and closed, and
// returns its path.
func writeTemp(f File) (string, error) {
	tmp, err := os.CreateTemp(filepath.Dir(f.Path), "."+filepath.Base(f.Path)+".*.tmp")
	if err != nil {
		return "", fmt.Errorf("atomicfile: cannot write %s: %w", f.Path, unwrapPath(err))
	}
	_, err = tmp.Write(f.Data)
	if err == nil {
		err = tmp.Sync()
	}
	if closeErr := tmp.Close(); err == nil {
		err = closeErr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), perm)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("atomicfile: cannot write %s: %w", f.Path, unwrapPath(err))
	}
	return tmp.Name(), nil
}

// syncDir makes a rename or link in dir durable. A platform or file system that cannot sync a
// folder (Windows, some network file systems) is not an error: the rename is as durable as it
// can make it.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		if isSyncUnsupported(err) {
			return nil
		}
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, errors.ErrUnsupported) && !isSyncUnsupported(err) {
		return err
	}
	return nil
}

// unwrapPath drops the operation and path of an os error, which the message names already.
func unwrapPath(err error) error {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return pathErr.Err
	}
	var linkErr *os.LinkError
	if errors.As(err, &linkErr) {
		return linkErr.Err
	}
	return err
}
