package sim

import (
	"io"
	"io/fs"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/filestore"
)

// openOn opens path on d, failing the test on an error.
func openOn(t *testing.T, d *disk, path string) filestore.File {
	t.Helper()
	f, err := d.OpenFile(path)
	require.NoError(t, err)
	return f
}

func write(t *testing.T, f filestore.File, s string) {
	t.Helper()
	n, err := f.Write([]byte(s))
	require.NoError(t, err)
	require.Equal(t, len(s), n)
}

// readAll reads the whole file through ReadAt, as the store does.
func readAll(t *testing.T, f filestore.File) string {
	t.Helper()
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<62))
	require.NoError(t, err)
	return string(b)
}

func TestDiskReadsSeeWrittenBytesAndOnlySyncedOnesSurviveAPowerLoss(t *testing.T) {
	for _, c := range []struct {
		unsynced string
		survives string
		dropped  int
	}{
		{faults.UnsyncedDropped, "one\n", 9},
		{faults.UnsyncedTorn, "one\ntwo\n", 5}, // the first half (4 of 9 bytes) of "two\nfour\n" is kept
	} {
		t.Run(c.unsynced, func(t *testing.T) {
			d := newDisk()
			f := openOn(t, d, "log")
			write(t, f, "one\n")
			require.NoError(t, f.Sync())
			write(t, f, "two\n")
			write(t, f, "four\n")
			assert.Equal(t, "one\ntwo\nfour\n", readAll(t, f), "reads see what was written, synced or not")

			assert.Equal(t, c.dropped, d.losePower(c.unsynced))
			assert.Equal(t, c.survives, string(d.contents("log")))
			assert.Zero(t, d.losePower(c.unsynced), "what is left is durable: a second power loss loses nothing")
			assert.Equal(t, c.survives, string(d.contents("log")))
		})
	}
}

func TestAProcessCrashLosesNothingWrittenAndDropsTheLock(t *testing.T) {
	d := newDisk()
	f := openOn(t, d, "log")
	require.NoError(t, f.Lock())
	write(t, f, "unsynced\n")

	other := openOn(t, d, "log")
	require.ErrorIs(t, other.Lock(), filestore.ErrLocked, "one writer at a time")
	require.NoError(t, other.Close())

	d.closeAll() // the process dies: the kernel closes its files
	_, err := f.Write([]byte("late\n"))
	require.ErrorIs(t, err, fs.ErrClosed, "a dead process's handle writes nothing")
	assert.Equal(t, "unsynced\n", string(d.contents("log")), "the page cache outlives the process")

	next := openOn(t, d, "log")
	require.NoError(t, next.Lock(), "the dead process's lock went with it")
	assert.Equal(t, "unsynced\n", readAll(t, next))
}

func TestATruncateIsDurableOnlyOnceSynced(t *testing.T) {
	d := newDisk()
	f := openOn(t, d, "log")
	write(t, f, "one\ntwo\n")
	require.NoError(t, f.Sync())
	require.NoError(t, f.Truncate(4))
	write(t, f, "six\n")
	assert.Equal(t, "one\nsix\n", readAll(t, f))
	d.losePower(faults.UnsyncedTorn)
	assert.Equal(t, "one\ntwo\n", string(d.contents("log")), "the cut and the write after it were never synced")

	require.NoError(t, f.Truncate(4))
	require.NoError(t, f.Sync())
	d.losePower(faults.UnsyncedDropped)
	assert.Equal(t, "one\n", string(d.contents("log")))

	require.Error(t, f.Truncate(5), "beyond the end")
	require.Error(t, f.Truncate(-1))
}

// diedInWrite is what a test's die panics with, standing in for the process's death.
type diedInWrite struct{ crash faults.Action }

func TestACrashArmedOnTheDiskStrikesInsideTheNextWrite(t *testing.T) {
	for _, c := range []struct {
		written string
		left    string
	}{
		{faults.WrittenNone, "one\n"},
		{faults.WrittenWhole, "one\nfour\n"},
		{faults.WrittenTorn, "one\nfo"},
	} {
		t.Run(c.written, func(t *testing.T) {
			d := newDisk()
			d.die = func(a faults.Action) { panic(diedInWrite{a}) }
			f := openOn(t, d, "log")
			write(t, f, "one\n")
			crash := faults.Action{Kind: faults.ActCrash, InAppend: true, Written: c.written}
			d.armed = &crash
			died := func() (r any) {
				defer func() { r = recover() }()
				f.Write([]byte("four\n"))
				return nil
			}()
			assert.Equal(t, diedInWrite{crash}, died, "the write never returns")
			assert.Nil(t, d.armed, "a crash strikes once")
			assert.Equal(t, c.left, string(d.contents("log")))
		})
	}
}

// The file store's own torn-tail cut runs on the simulated disk: a write cut short by a power
// loss mid-writeback is cut off on reopening, and the cut is durable.
func TestTheFileStoreCutsATornLineOnTheSimulatedDisk(t *testing.T) {
	d := newDisk()
	store, _, err := filestore.OpenFS(d, sessionLogPath)
	require.NoError(t, err)
	events := []harness.Event{
		{Seq: 1, Type: harness.TypeTurnStart, Time: 1000, Data: harness.TurnStart{Turn: 1}},
		{Seq: 2, Type: harness.TypeTurnEnd, Time: 1000, Data: harness.TurnEnd{Turn: 1, Reason: harness.TurnEndReason{Kind: harness.EndCompleted}}},
	}
	for _, e := range events {
		require.NoError(t, store.Append(e))
	}
	d.closeAll() // the process dies
	f := openOn(t, d, sessionLogPath)
	write(t, f, `{"seq":3,"type":"turn/e`) // a line whose newline never made it
	require.NoError(t, f.Sync())
	require.NoError(t, f.Close())
	durable := len(d.contents(sessionLogPath)) - len(`{"seq":3,"type":"turn/e`)

	reopened, opened, err := filestore.OpenFS(d, sessionLogPath)
	require.NoError(t, err)
	defer reopened.Close()
	require.NotNil(t, opened.Torn)
	assert.Equal(t, 3, opened.Torn.Line)
	assert.Equal(t, events, opened.Events)
	assert.Len(t, d.contents(sessionLogPath), durable)
	d.losePower(faults.UnsyncedDropped)
	assert.Len(t, d.contents(sessionLogPath), durable, "the cut was synced")
}

// The synced bytes share the written ones' array; what a reader got of them never changes under
// it: not by later writes, nor by a write after a truncate into them.
func TestSyncedBytesHandedOutStayAsTheyWere(t *testing.T) {
	d := newDisk()
	f := openOn(t, d, "log")
	write(t, f, "one\ntwo\n")
	require.NoError(t, f.Sync())
	synced := d.syncedContents("log")
	write(t, f, "three\n")
	require.NoError(t, f.Truncate(4))
	write(t, f, "six\n")
	assert.Equal(t, "one\nsix\n", string(d.contents("log")))
	assert.Equal(t, "one\ntwo\n", string(synced), "handed out before the truncate")
	assert.Equal(t, "one\ntwo\n", string(d.syncedContents("log")), "the truncate is not synced")
	require.NoError(t, f.Sync())
	assert.Equal(t, "one\nsix\n", string(d.syncedContents("log")))
	assert.Equal(t, "one\ntwo\n", string(synced))
}

// A power loss keeps what survives in the file's own array, so the writes after it use the room
// the file had (a sweep's reused buffer among it) instead of regrowing a copy; the synced bytes
// handed out before it stay as they were, since only never-synced bytes are written over.
func TestAPowerLossKeepsTheFilesRoom(t *testing.T) {
	for _, unsynced := range []string{faults.UnsyncedDropped, faults.UnsyncedTorn} {
		t.Run(unsynced, func(t *testing.T) {
			d := newDisk()
			d.spare = make([]byte, 0, 64)
			f := openOn(t, d, "log")
			write(t, f, "one\n")
			require.NoError(t, f.Sync())
			synced := d.syncedContents("log")
			write(t, f, "two\nsix\n")
			d.losePower(unsynced)
			write(t, f, "ten\n")
			require.NoError(t, f.Sync())
			written := d.contents("log")
			assert.Equal(t, 64, cap(written), "the file's array, not a copy of the bytes kept")
			want := map[string]string{faults.UnsyncedDropped: "one\nten\n", faults.UnsyncedTorn: "one\ntwo\nten\n"}[unsynced]
			assert.Equal(t, want, string(written))
			assert.Equal(t, "one\n", string(synced), "handed out before the power loss")
		})
	}
}

// A disk keeps its files apart, the first in the disk's own room and any later one on its own,
// and a power loss takes the unsynced bytes of each.
func TestADiskKeepsItsFilesApart(t *testing.T) {
	d := newDisk()
	logFile, other := openOn(t, d, "log"), openOn(t, d, "other")
	write(t, logFile, "one\n")
	require.NoError(t, logFile.Sync())
	write(t, other, "two\n")
	write(t, logFile, "three\n")
	again := openOn(t, d, "other")
	assert.Equal(t, "two\n", readAll(t, again), "the same file, opened again")
	assert.Equal(t, "one\nthree\n", string(d.contents("log")))
	assert.Nil(t, d.contents("absent"))
	d.losePower(faults.UnsyncedDropped)
	assert.Equal(t, "one\n", string(d.contents("log")))
	assert.Empty(t, d.contents("other"))
	assert.Len(t, d.files, 2)
}

// A crash inside a write leaves as much of the line as the crash says: half of it, torn.
func TestACrashInsideAWriteLeavesItsPart(t *testing.T) {
	d := newDisk()
	f := openOn(t, d, "log")
	write(t, f, "one\n")
	var died faults.Action
	d.die = func(a faults.Action) { died = a; panic("died") }
	d.armed = &faults.Action{Written: faults.WrittenTorn}
	assert.PanicsWithValue(t, "died", func() { _, _ = f.Write([]byte("three\n")) })
	assert.Equal(t, faults.WrittenTorn, died.Written)
	assert.Equal(t, "one\nthr", string(d.contents("log")))
}

// A line a crash left written but not synced (an append that never returned) is part of the
// history the reopened store hands out: the open makes it durable, so a power loss after it
// cannot take back events the restarted agent went on from.
func TestReopenMakesWhatItReadDurable(t *testing.T) {
	d := newDisk()
	log, _, err := filestore.OpenFS(d, sessionLogPath)
	require.NoError(t, err)
	require.NoError(t, log.Append(harness.Event{Seq: 1, Type: harness.TypeUserMessage, Data: harness.UserMessage{Message: harness.Message{ID: "m1", Text: "hi"}}}))
	synced := len(d.syncedContents(sessionLogPath))
	d.armed = &faults.Action{Kind: faults.ActCrash, InAppend: true, Written: faults.WrittenWhole}
	d.die = func(faults.Action) { d.closeAll(); runtime.Goexit() }
	done := make(chan struct{})
	go func() {
		defer close(done)
		log.Append(harness.Event{Seq: 2, Type: harness.TypeInboxPush, Data: harness.InboxPush{Lane: harness.LaneNextTurn, Kind: harness.KindFollowup, MessageID: "m1"}})
	}()
	<-done
	require.Len(t, d.syncedContents(sessionLogPath), synced, "the dying append wrote its line, unsynced")
	_, opened, err := filestore.OpenFS(d, sessionLogPath)
	require.NoError(t, err)
	require.Len(t, opened.Events, 2)
	assert.Equal(t, d.contents(sessionLogPath), d.syncedContents(sessionLogPath), "what the open read is durable")
}
