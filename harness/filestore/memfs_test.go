package filestore_test

import (
	"io"

	"github.com/turnsim/turnsim/harness/filestore"
)

// memFS is a file system in memory: enough of filestore.FS for tests that want many quick
// opens (fuzzing) without a real file and its fsync. It has no durability to model: that is the
// simulator's disk (sim/disk.go).
type memFS struct {
	files map[string]*memFile
}

type memFile struct {
	data   []byte
	locked bool
}

// memHandle is one open memFile.
type memHandle struct {
	f      *memFile
	locked bool
}

func newMemFS() *memFS { return &memFS{files: map[string]*memFile{}} }

func (m *memFS) OpenFile(path string) (filestore.File, error) {
	if m.files[path] == nil {
		m.files[path] = &memFile{}
	}
	return &memHandle{f: m.files[path]}, nil
}

func (m *memFS) SyncDir(string) error { return nil }

func (h *memHandle) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(h.f.data)) {
		return 0, io.EOF
	}
	n := copy(p, h.f.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (h *memHandle) Write(p []byte) (int, error) {
	h.f.data = append(h.f.data, p...)
	return len(p), nil
}

func (h *memHandle) Sync() error { return nil }

func (h *memHandle) Truncate(size int64) error {
	h.f.data = h.f.data[:size]
	return nil
}

func (h *memHandle) Lock() error {
	if h.f.locked && !h.locked {
		return filestore.ErrLocked
	}
	h.f.locked, h.locked = true, true
	return nil
}

func (h *memHandle) Unlock() error {
	if h.locked {
		h.f.locked, h.locked = false, false
	}
	return nil
}

func (h *memHandle) Close() error { return h.Unlock() }
