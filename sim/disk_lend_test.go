package sim

import (
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness/filestore"
)

// lend lends f's content, failing the test on an error.
func lend(t *testing.T, f filestore.File) []byte {
	t.Helper()
	lent, err := f.(filestore.Lender).Lend()
	require.NoError(t, err)
	return lent
}

// What the disk lent a reader never changes under it, whatever the file does afterwards: a power
// loss that cuts into lent bytes (never synced, or synced halfway through a line) and the writes
// after it, a truncate into synced bytes, and appends. A truncate gives back only what it cuts
// off: the store truncates its torn tail and keeps nothing of it.
func TestLentBytesStayAsTheyWere(t *testing.T) {
	for _, c := range []struct {
		name string
		// before writes the file up to the lend; after is what the file goes through then.
		before, after func(t *testing.T, d *disk, f filestore.File)
		kept          int    // how many of the lent bytes the reader keeps
		want          string // the file's written bytes at the end
	}{{
		name: "a power loss drops lent bytes never synced, and the file is written on",
		before: func(t *testing.T, d *disk, f filestore.File) {
			write(t, f, "one\n")
			require.NoError(t, f.Sync())
			write(t, f, "two\nsix\n") // a crash before the sync: the reopen reads them all the same
		},
		after: func(t *testing.T, d *disk, f filestore.File) {
			d.losePower(faults.UnsyncedDropped)
			write(t, f, "ten\n")
			require.NoError(t, f.Sync())
		},
		kept: 12, want: "one\nten\n",
	}, {
		name: "a torn power loss keeps half the unsynced lent bytes, and the file is written on",
		before: func(t *testing.T, d *disk, f filestore.File) {
			write(t, f, "one\n")
			require.NoError(t, f.Sync())
			write(t, f, "two\nsix\n")
		},
		after: func(t *testing.T, d *disk, f filestore.File) {
			d.losePower(faults.UnsyncedTorn)
			write(t, f, "ten\n")
		},
		kept: 12, want: "one\ntwo\nten\n",
	}, {
		name: "the reader truncates its torn tail and appends",
		before: func(t *testing.T, d *disk, f filestore.File) {
			write(t, f, "one\ntwo\nsi")
			require.NoError(t, f.Sync())
		},
		after: func(t *testing.T, d *disk, f filestore.File) {
			require.NoError(t, f.Truncate(8))
			require.NoError(t, f.Sync())
			write(t, f, "ten\n")
			d.losePower(faults.UnsyncedDropped)
			write(t, f, "six\n")
		},
		kept: 8, want: "one\ntwo\nsix\n",
	}, {
		name: "the reader truncates a torn tail a power loss synced, then the power fails again",
		before: func(t *testing.T, d *disk, f filestore.File) {
			write(t, f, "one\n")
			require.NoError(t, f.Sync())
			write(t, f, "two\n")
			d.losePower(faults.UnsyncedTorn) // "one\ntw", all synced
		},
		after: func(t *testing.T, d *disk, f filestore.File) {
			require.NoError(t, f.Truncate(4))
			write(t, f, "ten\n")
			d.losePower(faults.UnsyncedDropped)
			write(t, f, "six\n")
		},
		kept: 4, want: "one\ntwsix\n",
	}} {
		t.Run(c.name, func(t *testing.T) {
			d := newDisk()
			d.spare = make([]byte, 0, 64) // room for every write: nothing moves unless it must
			f := openOn(t, d, "log")
			c.before(t, d, f)
			lent := lend(t, f)
			was := string(lent)
			assert.Equal(t, readAll(t, f), was, "what a read sees")
			c.after(t, d, f)
			assert.Equal(t, was[:c.kept], string(lent[:c.kept]), "the lent bytes the reader keeps")
			assert.Equal(t, c.want, string(d.contents("log")))
		})
	}
}

// A lend into room the file already has, with nothing cut since, moves nothing: the reader holds
// the file's own bytes, and the appends after it go on in the same array.
func TestALendCopiesNothing(t *testing.T) {
	d := newDisk()
	d.spare = make([]byte, 0, 64)
	f := openOn(t, d, "log")
	write(t, f, "one\n")
	lent := lend(t, f)
	write(t, f, "two\n")
	require.NoError(t, f.Sync())
	written := d.contents("log")
	assert.Same(t, &written[0], &lent[0])
	assert.Equal(t, 64, cap(written))
	assert.Equal(t, "one\n", string(lent))
	assert.Equal(t, 4, cap(lent), "clipped: an append to it copies")
}

func TestALendOfAClosedFileFails(t *testing.T) {
	d := newDisk()
	f := openOn(t, d, "log")
	require.NoError(t, f.Close())
	_, err := f.(filestore.Lender).Lend()
	assert.ErrorIs(t, err, fs.ErrClosed)
}
