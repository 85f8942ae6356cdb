package sim

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness/filestore"
)

// disk is the simulated disk the world runs the real file store on (a filestore.FS): in memory,
// deterministic, and honest about durability. It keeps apart, for each file, the bytes written
// (what reads see: the operating system's page cache) and the bytes synced (what survives the
// machine losing power). A crash of the process loses nothing written; a power loss drops what
// was written but not synced, all of it or all but a torn first part. Nothing on it ever yields
// to the scheduler, so a store operation is atomic with respect to the simulated tasks, as a
// system call is: a crash strikes between two of them, or inside a write when armed to.
type disk struct {
	// files are the disk's files, in the order they were created (a power loss goes through them
	// in that order): a world's disk holds one, the session log.
	files []*diskFile
	// open are the handles not yet closed; a crash closes them all, as the kernel closes a dead
	// process's files (and so drops its locks).
	open []*diskHandle
	// armed is a crash waiting inside the next write: that much of the bytes (faults.Written*)
	// reaches the file, then die is called and never returns.
	armed *faults.Action
	die   func(faults.Action)
	// failedSync is an armed crash with FailSync once its sync failed (Sync): the store goes on
	// to cut its file back, and the world then lets the power go (simStore.Append).
	failedSync *faults.Action
	// spare is an empty buffer an earlier run left (scratch.go), for the first file's bytes.
	spare []byte
}

// diskFile is one file's content, written and synced. The synced bytes are written[:syncedLen],
// sharing written's array, as long as written is synced plus more; a truncate that cuts into them
// (diverged) moves the written ones to a copy first, so that the synced bytes stay as they were.
type diskFile struct {
	path      string
	written   []byte
	syncedLen int
	// diverged is set when a truncate since the last sync cut into the synced bytes: written is
	// then no longer synced plus more, and a power loss brings back synced (their copy) as it was.
	diverged bool
	synced   []byte
	locked   *diskHandle
}

// syncedBytes is what of the file a power loss would leave now.
func (f *diskFile) syncedBytes() []byte {
	if f.diverged {
		return f.synced
	}
	return f.written[:f.syncedLen:f.syncedLen]
}

// diskHandle is one open file: a filestore.File.
type diskHandle struct {
	disk   *disk
	file   *diskFile
	closed bool
}

var (
	_ filestore.FS    = (*disk)(nil)
	_ filestore.File  = (*diskHandle)(nil)
	_ filestore.Sizer = (*diskHandle)(nil)
)

func newDisk() *disk { return &disk{} }

// file is the file at path, or nil.
func (d *disk) file(path string) *diskFile {
	for _, f := range d.files {
		if f.path == path {
			return f
		}
	}
	return nil
}

// OpenFile opens path, creating it empty if absent.
func (d *disk) OpenFile(path string) (filestore.File, error) {
	f := d.file(path)
	if f == nil {
		f = &diskFile{path: path, written: d.spare}
		d.spare = nil
		d.files = append(d.files, f)
	}
	h := &diskHandle{disk: d, file: f}
	d.open = append(d.open, h)
	return h, nil
}

// SyncDir succeeds: the simulated disk keeps every file it created (a power loss empties a new
// file's unsynced content, it never unlinks it).
func (d *disk) SyncDir(string) error { return nil }

// contents returns what reads of path see now (nil if absent).
func (d *disk) contents(path string) []byte {
	if f := d.file(path); f != nil {
		return f.written
	}
	return nil
}

// syncedContents returns what of path would survive a power loss now (nil if absent).
func (d *disk) syncedContents(path string) []byte {
	if f := d.file(path); f != nil {
		return f.syncedBytes()
	}
	return nil
}

// closeAll closes every open handle, as the kernel does when a process dies.
func (d *disk) closeAll() {
	for _, h := range d.open {
		h.release()
	}
	clear(d.open)
	d.open = d.open[:0] // the next incarnation's handles go in the same array
	d.armed = nil
}

// losePower drops, in every file, what was written but not synced: all of it (unsynced
// faults.UnsyncedDropped) or all but its first half (faults.UnsyncedTorn), the writeback cut
// short. What is left is what the platter holds: written and synced alike. It returns how many
// written bytes were lost.
func (d *disk) losePower(unsynced string) (droppedBytes int) {
	for _, f := range d.files {
		if f.diverged {
			// What is kept is the synced copy; the written array is left to readers that hold it.
			droppedBytes += max(len(f.written)-len(f.synced), 0)
			f.written, f.syncedLen, f.synced, f.diverged = slices.Clone(f.synced), len(f.synced), nil, false
			continue
		}
		// What is kept is a prefix of the written bytes, and synced now: it stays in their array.
		// The bytes past it were never synced, so no reader of synced bytes sees them change.
		kept := f.syncedLen
		if unsynced == faults.UnsyncedTorn {
			kept += (len(f.written) - f.syncedLen) / 2
		}
		droppedBytes += len(f.written) - kept
		f.written, f.syncedLen = f.written[:kept], kept
	}
	return droppedBytes
}

func (h *diskHandle) check(op string) error {
	if h.closed {
		return fmt.Errorf("sim: disk: %s %s: %w", op, h.file.path, fs.ErrClosed)
	}
	return nil
}

// Size is how many bytes are written: the store reads the file into one buffer of that size.
func (h *diskHandle) Size() (int64, error) {
	if err := h.check("stat"); err != nil {
		return 0, err
	}
	return int64(len(h.file.written)), nil
}

// ReadAt reads the written bytes.
func (h *diskHandle) ReadAt(p []byte, off int64) (int, error) {
	if err := h.check("read"); err != nil {
		return 0, err
	}
	if off >= int64(len(h.file.written)) {
		return 0, io.EOF
	}
	n := copy(p, h.file.written[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Write appends p to the written bytes, unless a crash is armed: then only part of p (none, all
// or half, as the crash says) is written, and the process dies inside the write.
func (h *diskHandle) Write(p []byte) (int, error) {
	if err := h.check("write"); err != nil {
		return 0, err
	}
	if d := h.disk; d.armed != nil && !d.armed.FailSync {
		crash := *d.armed
		d.armed = nil
		h.file.written = append(h.file.written, p[:writtenBytes(crash.Written, len(p))]...)
		d.die(crash)
		panic("sim: invariant: the process went on after dying inside a write")
	}
	h.file.written = append(h.file.written, p...)
	return len(p), nil
}

// writtenBytes is how many of n bytes a write that a crash cuts short leaves written.
func writtenBytes(written string, n int) int {
	switch written {
	case faults.WrittenWhole:
		return n
	case faults.WrittenTorn:
		return n / 2
	}
	return 0
}

// errSyncFailed is the disk's answer to a sync a crash with FailSync fails.
var errSyncFailed = errors.New("sim: disk: sync failed: input/output error (simulated)")

// Sync makes the written bytes durable. Armed with a crash that fails it (FailSync), it makes them
// durable all the same and reports an error: the worst a failing fsync can leave, bytes the
// writer was told did not stick that a power loss will bring back unless it cuts them off and
// syncs again.
func (h *diskHandle) Sync() error {
	if err := h.check("sync"); err != nil {
		return err
	}
	f := h.file
	f.syncedLen, f.synced, f.diverged = len(f.written), nil, false
	if d := h.disk; d.armed != nil && d.armed.FailSync {
		d.failedSync, d.armed = d.armed, nil
		return errSyncFailed
	}
	return nil
}

// Truncate cuts the written bytes to size; the synced ones change only on the next sync.
func (h *diskHandle) Truncate(size int64) error {
	if err := h.check("truncate"); err != nil {
		return err
	}
	f := h.file
	if size < 0 || size > int64(len(f.written)) {
		return fmt.Errorf("sim: disk: truncate %s to %d bytes: outside [0, %d]", h.file.path, size, len(f.written))
	}
	if !f.diverged && size < int64(f.syncedLen) {
		// The next write would overwrite synced bytes in the shared array: the synced bytes stay
		// where they are (for whoever holds them), the written ones move to a copy.
		f.synced, f.diverged = f.written[:f.syncedLen:f.syncedLen], true
		f.written = slices.Clone(f.written[:size])
		return nil
	}
	f.written = f.written[:size]
	return nil
}

// Lock takes the file's lock, or fails with filestore.ErrLocked.
func (h *diskHandle) Lock() error {
	if err := h.check("lock"); err != nil {
		return err
	}
	if h.file.locked != nil && h.file.locked != h {
		return filestore.ErrLocked
	}
	h.file.locked = h
	return nil
}

// Unlock drops the file's lock, if this handle holds it.
func (h *diskHandle) Unlock() error {
	if err := h.check("unlock"); err != nil {
		return err
	}
	if h.file.locked == h {
		h.file.locked = nil
	}
	return nil
}

// Close closes the handle, dropping its lock.
func (h *diskHandle) Close() error {
	if err := h.check("close"); err != nil {
		return err
	}
	h.release()
	h.disk.open = slices.DeleteFunc(h.disk.open, func(o *diskHandle) bool { return o == h })
	return nil
}

func (h *diskHandle) release() {
	h.closed = true
	if h.file.locked == h {
		h.file.locked = nil
	}
}
