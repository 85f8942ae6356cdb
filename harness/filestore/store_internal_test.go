package filestore

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
)

func turnStart(seq int64, turn int) harness.Event {
	return harness.Event{Seq: seq, Type: harness.TypeTurnStart, Time: 1000, Data: harness.TurnStart{Turn: turn}}
}

func turnEnd(seq int64, turn int) harness.Event {
	return harness.Event{Seq: seq, Type: harness.TypeTurnEnd, Time: 1000, Data: harness.TurnEnd{Turn: turn, Reason: harness.TurnEndReason{Kind: harness.EndCompleted}}}
}

// openWithOneTurn opens a fresh store and appends one settled turn.
func openWithOneTurn(t *testing.T) (*Store, string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session.jsonl")
	s, _, err := Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	require.NoError(t, s.Append(turnStart(1, 1)))
	require.NoError(t, s.Append(turnEnd(2, 1)))
	content, err := os.ReadFile(path)
	require.NoError(t, err)
	return s, path, content
}

func assertBrokenForGood(t *testing.T, s *Store) {
	t.Helper()
	err := s.Append(turnStart(3, 2))
	require.ErrorIs(t, err, ErrBroken, "every later append is refused")
	assert.Contains(t, err.Error(), "refused: store is broken: event 3 (turn/start) failed to become durable")
}

func TestAppendWhoseWriteFailsBreaksTheStore(t *testing.T) {
	s, path, content := openWithOneTurn(t)
	require.NoError(t, s.file.Close()) // the file is gone from under the store: the write fails

	err := s.Append(turnStart(3, 2))
	require.ErrorIs(t, err, ErrBroken)
	require.ErrorIs(t, err, os.ErrClosed)
	assertBrokenForGood(t, s)

	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, content, got)
}

func TestAppendWhoseWriteIsCutShortIsTruncatedBack(t *testing.T) {
	s, path, content := openWithOneTurn(t)
	file := s.file
	s.file = seamFile{File: file, write: func(b []byte) (int, error) { // half the line reaches the file, then the disk fills
		n, _ := file.Write(b[:len(b)/2])
		return n, errors.New("no space left on device")
	}}
	err := s.Append(turnStart(3, 2))
	require.ErrorIs(t, err, ErrBroken)
	assert.Contains(t, err.Error(), "no space left on device")

	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, content, got, "the half line is cut off again")
	assertBrokenForGood(t, s)
	assert.Equal(t, int64(len(content)), s.Size())
}

func TestAppendWhoseSyncFailsIsTruncatedBack(t *testing.T) {
	s, path, content := openWithOneTurn(t)
	s.file = seamFile{File: s.file, sync: func() error { return errors.New("input/output error") }}
	err := s.Append(turnStart(3, 2))
	require.ErrorIs(t, err, ErrBroken)

	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, content, got, "a line that was written but not made durable is taken back")
	assertBrokenForGood(t, s)

	// The store is still closable, and the log opens clean without the failed event.
	require.NoError(t, s.Close())
	reopened, opened, err := Open(path)
	require.NoError(t, err)
	defer reopened.Close()
	assert.Len(t, opened.Events, 2)
}

func TestShortWriteWithoutAnErrorStillBreaksTheStore(t *testing.T) {
	s, path, content := openWithOneTurn(t)
	file := s.file
	s.file = seamFile{File: file, write: func(b []byte) (int, error) { return file.Write(b[:3]) }}
	err := s.Append(turnStart(3, 2))
	require.ErrorIs(t, err, ErrBroken)
	require.ErrorIs(t, err, io.ErrShortWrite)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, content, got)
}

// An event that would encode to a line no reader takes back is refused before a byte is written,
// and the store goes on: the log on disk stays readable by eventjson.Read.
func TestAppendRefusesALineLongerThanTheReaderTakes(t *testing.T) {
	s, path, before := openWithOneTurn(t)
	lineBytesMax = len(before) // lowered: a 64 MiB line would make the test heavy
	t.Cleanup(func() { lineBytesMax = harness.LineBytesMax })
	long := harness.Event{Seq: 3, Type: harness.TypeUserMessage, Time: 1000, Data: harness.UserMessage{Message: harness.Message{ID: "m1", Text: string(make([]byte, len(before)))}}}
	err := s.Append(long)
	require.ErrorIs(t, err, ErrLineTooLong)
	assert.Contains(t, err.Error(), "event 3 (user/message) encodes to")
	after, readErr := os.ReadFile(path)
	require.NoError(t, readErr)
	assert.Equal(t, before, after, "nothing written")
	require.NoError(t, s.Append(turnStart(3, 2)), "the store is not broken by a refusal")
}

// A reopen decodes only the lines the file gained since prev was read: the events before them
// are prev's own (here one marked by a time no line holds), and a file that no longer begins
// with prev's lines is decoded whole.
func TestReopenDecodesOnlyWhatTheLogGained(t *testing.T) {
	s, path, content := openWithOneTurn(t)
	require.NoError(t, s.Close())
	s, prev, err := Open(path)
	require.NoError(t, err)
	require.Equal(t, content, prev.read, "what was read is the file's complete lines")
	require.NoError(t, s.Append(turnStart(3, 2)))
	require.NoError(t, s.Close())

	prev.Events[0].Time = 999 // the mark: were line 1 decoded again, its time would be 1000
	s, reopened, err := ReopenFS(OSFS{}, path, prev)
	require.NoError(t, err)
	require.Len(t, reopened.Events, 3)
	assert.Equal(t, int64(999), reopened.Events[0].Time, "line 1 was not decoded again")
	assert.Equal(t, turnStart(3, 2), reopened.Events[2], "line 3 was")
	require.NoError(t, s.Close())

	require.NoError(t, os.WriteFile(path, content[:len(content)-1], 0o644)) // not prev's lines any more
	s, reopened, err = ReopenFS(OSFS{}, path, prev)
	require.NoError(t, err)
	defer s.Close()
	require.Len(t, reopened.Events, 1, "the cut line 2 is torn")
	assert.Equal(t, int64(1000), reopened.Events[0].Time, "a file that changed is decoded whole")
}

// sizedReader is a File's reading half whose Size may be wrong (a file that grew since, or a
// broken stat): readFile must still read every byte, growing its buffer.
type sizedReader struct {
	File
	data []byte
	size int64
	err  error
}

func (r sizedReader) Size() (int64, error) { return r.size, r.err }

func (r sizedReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(r.data)) {
		return 0, io.EOF
	}
	n := copy(p, r.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// plainReader has no Size: readFile grows its buffer from the hint.
type plainReader struct{ sizedReader }

func (plainReader) Size() {} // shadows sizedReader's, so plainReader is no Sizer

func TestReadFileReadsEverythingWhateverItsSizeSays(t *testing.T) {
	data := make([]byte, 10_000)
	for i := range data {
		data[i] = byte('a' + i%26)
	}
	for _, tc := range []struct {
		name string
		file File
		hint int
	}{
		{"exact size", sizedReader{data: data, size: int64(len(data))}, 0},
		{"size too small", sizedReader{data: data, size: 100}, 0},
		{"size zero", sizedReader{data: data}, 0},
		{"size too large", sizedReader{data: data, size: 50_000}, 0},
		{"no size, no hint", plainReader{sizedReader{data: data}}, 0},
		{"no size, hint", plainReader{sizedReader{data: data}}, 9_000},
		{"empty file", sizedReader{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readFile(tc.file, tc.hint)
			require.NoError(t, err)
			want := tc.file.(interface{ all() []byte }).all()
			assert.Equal(t, want, got)
		})
	}
	_, err := readFile(sizedReader{data: data, err: errors.New("stat failed")}, 0)
	assert.ErrorContains(t, err, "stat failed")
}

// all is every byte the file holds (never nil, as readFile's answer is not).
func (r sizedReader) all() []byte {
	if r.data == nil {
		return []byte{}
	}
	return r.data
}

// seamFile is a File whose Write or Sync a test replaces (nil: the file's own).
type seamFile struct {
	File
	write func([]byte) (int, error)
	sync  func() error
}

func (f seamFile) Write(b []byte) (int, error) {
	if f.write != nil {
		return f.write(b)
	}
	return f.File.Write(b)
}

func (f seamFile) Sync() error {
	if f.sync != nil {
		return f.sync()
	}
	return f.File.Sync()
}
