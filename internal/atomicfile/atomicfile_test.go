//go:build unix

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteReplacesARegularFileAndLeavesNoTemporary(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o600))
	require.NoError(t, Write(path, []byte("new")))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "new", string(data))
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(perm), info.Mode().Perm())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left beside it")
}

// Every kind of file that is not a regular file is refused, named, and left as it was.
func TestTargetsThatAreNotRegularFilesAreRefused(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "regular")
	require.NoError(t, os.WriteFile(regular, []byte("keep"), 0o644))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(regular, link))
	dangling := filepath.Join(dir, "dangling")
	require.NoError(t, os.Symlink(filepath.Join(dir, "nowhere"), dangling))
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	cases := map[string]string{
		link:        "a symlink",
		dangling:    "a symlink",
		fifo:        "a FIFO",
		dir:         "a folder",
		"/dev/null": "a device",
	}
	for path, kind := range cases {
		t.Run(kind+" "+filepath.Base(path), func(t *testing.T) {
			for _, write := range []func() error{
				func() error { return Write(path, []byte("x")) },
				func() error { return CreateNew(path, []byte("x")) },
				func() error { return WriteAll([]File{{regular, []byte("x")}, {path, []byte("x")}}) },
			} {
				err := write()
				var notRegular *NotRegularError
				require.ErrorAs(t, err, &notRegular)
				assert.Equal(t, kind, notRegular.Kind)
				assert.Contains(t, err.Error(), path)
			}
		})
	}
	data, err := os.ReadFile(regular)
	require.NoError(t, err)
	assert.Equal(t, "keep", string(data), "a failed WriteAll writes none of its files")
	target, err := os.Readlink(link)
	require.NoError(t, err)
	assert.Equal(t, regular, target, "the symlink is still a symlink")
	info, err := os.Lstat(fifo)
	require.NoError(t, err)
	assert.NotZero(t, info.Mode()&fs.ModeNamedPipe, "the FIFO is still a FIFO")
}

func TestAMissingFolderIsNamed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "out")
	err := Write(path, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "its folder")
	assert.Contains(t, err.Error(), "does not exist")
}

func TestCreateNewNeverReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "entry.json")
	require.NoError(t, CreateNew(path, []byte("first")))
	err := CreateNew(path, []byte("second"))
	assert.True(t, errors.Is(err, fs.ErrExist), "%v", err)
	data, _ := os.ReadFile(path)
	assert.Equal(t, "first", string(data))
	entries, _ := os.ReadDir(filepath.Dir(path))
	assert.Len(t, entries, 1, "no temporary file left beside it")
}

// After Freeze nothing appears: what a command relies on to save no file once interrupted.
func TestFreezeStopsEveryLaterWrite(t *testing.T) {
	t.Cleanup(func() { commits = sync.RWMutex{} })
	dir := t.TempDir()
	Freeze()
	for _, err := range []error{
		Write(filepath.Join(dir, "a"), []byte("x")),
		CreateNew(filepath.Join(dir, "b"), []byte("x")),
	} {
		assert.ErrorIs(t, err, ErrFrozen)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Empty(t, names, "nothing written, no temporary left: %s", strings.Join(names, ", "))
}

// A folder that takes no new file is refused before any work: the file is written beside its
// target and renamed over it. (sysfs refuses new files even to root, as CI runs; a folder chmod
// 555 would refuse only other users.) The probe leaves nothing behind in a folder that does.
func TestCheckTargetRefusesAFolderThatTakesNoNewFile(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("uses sysfs")
	}
	err := CheckTarget("/sys/atomicfile-test.json")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "its folder takes no new file")

	dir := t.TempDir()
	require.NoError(t, CheckTarget(filepath.Join(dir, "out.json")))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "the probe is gone")
}
