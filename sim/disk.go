package sim

import (
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
	// files are the disk's files, in the order they were created: searched in order, not a map,
	// since the world's disk holds one (the session log), and a map allocated its table on the
	// first file and had its keys sorted into a new slice at every power loss.
	files []*diskFile
	// open are the handles not yet closed; a crash closes them all, as the kernel closes a dead
	// process's files (and so drops its locks).
	open []*diskHandle
	// armed is a crash waiting inside the next write: that much of the bytes (faults.Written*)
	// reaches the file, then die is called and never returns.
	armed *faults.Action
	die   func(faults.Action)
	// spare is an empty buffer an earlier run left (scratch.go), for the first file's bytes.
	spare []byte
	// Room in the disk itself for what a world's disk holds, its one file and the one or two
	// handles open on it at a time, each an allocation of its own otherwise: files and open
	// start in these arrays, and the first file is firstFile.
	firstFile  diskFile
	filesRoom  [1]*diskFile
	handleRoom [2]*diskHandle
}

// diskFile is one file's content, written and synced. The synced bytes are written[:syncedLen],
// sharing written's array, as long as written is synced plus more; a truncate that cuts into them
// (diverged) moves the written ones to a copy first. One copy of a log, not two: a sync no longer
// copies the bytes it makes durable.
type diskFile struct {
	path      string
	written   []byte
	syncedLen int
	// diverged is set when a truncate since the last sync cut into the synced bytes: written is
	// then no longer synced plus more, and a power loss brings back synced (their copy) as it was.
	diverged bool
	synced   []byte
	// lent is how many of written's bytes a reader may hold in written's own array (Lend): they
	// are never written over in place, so a power loss that cuts into them moves the written
	// bytes to a copy first, as a truncate into the synced ones does. A truncate gives back the
	// lent bytes it cuts off (filestore.Lender): the store truncates only its torn tail, which
	// it keeps nothing of.
	lent   int
	locked *diskHandle
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
	_ filestore.FS       = (*disk)(nil)
	_ filestore.File     = (*diskHandle)(nil)
	_ filestore.LineRoom = (*diskHandle)(nil)
	_ filestore.Lender   = (*diskHandle)(nil)
)

func newDisk() *disk {
	d := &disk{}
	d.files, d.open = d.filesRoom[:0], d.handleRoom[:0]
	return d
}

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
		if len(d.files) == 0 {
			f = &d.firstFile
		} else {
			f = new(diskFile)
		}
		*f = diskFile{path: path, written: d.spare}
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
			f.lent = 0
			continue
		}
		// What is kept is a prefix of the written bytes, and synced now: it stays in their array,
		// whose room later writes go on using (a copy of exactly the kept bytes was regrown by the
		// next write). The bytes past it were never synced, so no reader of synced bytes sees them
		// change.
		kept := f.syncedLen
		if unsynced == faults.UnsyncedTorn {
			kept += (len(f.written) - f.syncedLen) / 2
		}
		droppedBytes += len(f.written) - kept
		if kept < f.lent {
			// The next write would change lent bytes under their reader: they stay where they
			// are, the kept ones move to a copy.
			f.written, f.lent = slices.Clone(f.written[:kept]), 0
		}
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

// Lend lends the written bytes themselves, not a copy: the store reads a log back at every
// restart, and its copy was a restart's largest allocation. The file never writes over lent bytes
// in place (lent): a power loss that cuts into them moves the written bytes to a copy first.
func (h *diskHandle) Lend() ([]byte, error) {
	if err := h.check("read"); err != nil {
		return nil, err
	}
	f := h.file
	f.lent = len(f.written) // never less than before: a cut below lent bytes forgets them
	return f.written[:f.lent:f.lent], nil
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
	if d := h.disk; d.armed != nil {
		crash := *d.armed
		d.armed = nil
		h.file.append(p[:writtenBytes(crash.Written, len(p))])
		d.die(crash)
		panic("sim: invariant: the process went on after dying inside a write")
	}
	h.file.append(p)
	return len(p), nil
}

// Room is the written bytes' free capacity past their end, grown to at least n bytes: the store
// encodes its next line there, and Write finds it in place. Only a write ever fills that room,
// so the store lends nothing another reader holds (the synced bytes end before it).
func (h *diskHandle) Room(n int) []byte {
	if h.closed {
		return nil // the store's own allocation, then; its Write fails on the closed handle
	}
	f := h.file
	if cap(f.written)-len(f.written) < n {
		f.grow(n)
	}
	return f.written[len(f.written):len(f.written)]
}

// grow makes room for n more written bytes, as an append of them would: apart from Room, which
// runs at every append, deep in the agent's stack.
//
//go:noinline
func (f *diskFile) grow(n int) { f.written = slices.Grow(f.written, n) }

// append appends p to the written bytes; a p already in place past them (Room's) only extends
// them, without copying p onto itself.
func (f *diskFile) append(p []byte) {
	w := f.written
	if len(p) > 0 && len(w)+len(p) <= cap(w) && &w[:len(w)+1][len(w)] == &p[0] {
		f.written = w[:len(w)+len(p)]
		return
	}
	f.written = append(w, p...)
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

// Sync makes the written bytes durable.
func (h *diskHandle) Sync() error {
	if err := h.check("sync"); err != nil {
		return err
	}
	f := h.file
	f.syncedLen, f.synced, f.diverged = len(f.written), nil, false
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
		f.written, f.lent = slices.Clone(f.written[:size]), 0
		return nil
	}
	f.written, f.lent = f.written[:size], min(f.lent, int(size)) // the reader gives back what it cut
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
