// Package filestore keeps a session log in a JSON Lines file, crash-safely: it is the durable
// harness.Store. An append returns only once its line is written and synced (fsync), so an event
// the session accepted is on disk before the agent acts on it: that is what makes "durable before
// wait" (llm/retry written before the backoff begins) mean something across a crash.
//
// Open reads the log back, with the session log's codec (eventjson) and a fresh invariant layer.
// The one damage a crash can do to such a file is a torn last line (a write cut short): Open cuts
// it off and reports it in Opened.Torn, a warning. Anything else malformed is a *FormatError
// naming the file, the line and the reason, and the file is left untouched. One writer at a time:
// Open takes an exclusive advisory lock, and a second writer (in this process or another) gets
// ErrLocked.
//
// The store does all its I/O through FS and File, the operating system's by default (Open); the
// simulator passes its own disk to OpenFS, one that keeps written and synced bytes apart and can
// lose power, so every crash seed runs this package's real code.
//
// Map: store.go (Open, OpenFS, ReopenFS: a reopen that decodes and validates only what the log
// gained; Opened.History, the validated log an agent resumes from; Append, Close), fs.go (the FS
// seam, the operating system's FS, and Sizer, which a file may offer besides),
// scan.go (Scan, the reader Open shares with `simrun check`, which reads logs without changing
// them), lock_unix.go and lock_other.go (the writer lock).
package filestore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sync"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/eventjson"
)

// Errors a Store reports; each is wrapped with the path.
var (
	// ErrLocked: another writer holds the session log.
	ErrLocked = errors.New("locked by another writer")
	// ErrBroken: an earlier append failed and the store could not vouch for the file's end.
	ErrBroken = errors.New("store is broken")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("store is closed")
	// ErrLineTooLong: the event encodes to a line longer than harness.LineBytesMax, which no
	// reader of the log would take back; the append is refused and the store stays usable.
	ErrLineTooLong = errors.New("line longer than a session log line may be (harness.LineBytesMax)")
)

// lineBufferMax is the largest line buffer a store keeps for its next append: the usual line is
// a few hundred bytes, and one huge line should not hold its buffer for the store's life.
const lineBufferMax = 64 << 10

// lineBufferStart is the size a store's line buffer starts at: most lines fit in it.
const lineBufferStart = 512

// lineBytesMax is harness.LineBytesMax; a variable so that a test can lower it instead of
// writing 64 MiB.
var lineBytesMax = harness.LineBytesMax

// Opened is what Open found in the file.
type Opened struct {
	// Events are the log's events, in order; they passed the invariant layer. They must not be
	// modified: they are History's events, and a ReopenFS given this Opened takes them as the
	// start of the log without decoding or validating them again.
	Events []harness.Event
	// Torn is the torn last line Open cut off, or nil.
	Torn *Torn
	// read is the content Events decode from: the file's complete lines when it was opened (the
	// store's own copy). ReopenFS decodes only what follows it.
	read []byte
	// history is Events as the invariant layer accepted them (nil when there are none): ReopenFS
	// validates only what follows them, from the state they left.
	history *harness.ValidatedHistory
}

// History is Events, validated: an agent resumes from it (harness.Config.ResumeFrom) without
// replaying the log through the invariant layer a second time. Nil when the log is empty.
func (o Opened) History() *harness.ValidatedHistory { return o.history }

// Content is the file's content Events were decoded from: its complete lines as the open read
// them, torn tail excluded. A reader that sees these bytes again (a check of the log's JSON
// Lines, say) may take Events as their decoding instead of decoding them a second time. It must
// not be modified.
func (o Opened) Content() []byte { return o.read }

// Store is an open session log. It implements harness.Store; it is safe for concurrent use.
type Store struct {
	mu   sync.Mutex
	path string
	file File
	// size is the length of the file's valid content: where the next line goes, and where a
	// failed append truncates back to.
	size int64
	// validator holds the log's invariant state, so an append that would make the file
	// unreadable on the next Open (a second session starting at seq 1, say) is refused.
	// It is the zero Validator, its maps made as the log needs them.
	validator harness.Validator
	// broken is why the store refuses appends, once an append failed.
	broken error
	closed bool

	// line is the buffer appends encode into, kept for the next append (up to lineBufferMax).
	line []byte
}

// Open opens the session log at path, on the operating system's file system, for appending,
// creating it (mode 0644) if absent. It locks the file against other writers, reads and
// validates the whole log, and cuts off a torn last line (after everything before it proved
// valid); what it read is synced before it is handed out. The error is ErrLocked (wrapped) when another writer holds the file,
// a *FormatError when its content is malformed (the file is then left byte-for-byte untouched),
// or an I/O error.
func Open(path string) (*Store, Opened, error) { return OpenFS(OSFS{}, path) }

// OpenFS is Open on the file system fsys: the simulator's disk, for one.
func OpenFS(fsys FS, path string) (*Store, Opened, error) { return ReopenFS(fsys, path, Opened{}) }

// ReopenFS is OpenFS for a process that opened the log before and read prev: a host restarting
// its agent, say. A log only grows, a torn tail aside, so when the file still begins with the
// lines prev's events were decoded from, only the lines after them are decoded, and the events
// are prev's followed by theirs; when it does not (a power loss took some of them, or another
// writer rewrote the file), the whole file is decoded, as OpenFS does. Either way the result is
// OpenFS's: the same events, torn line and errors, with the lock taken, the whole content read,
// every event judged by the invariant layer as a fresh one would judge it, and a torn tail cut.
// prev's events were judged when prev was read: the lines after them are judged from the state
// prev's left (Opened.History), not after a replay of prev's. The zero Opened is a first open.
func ReopenFS(fsys FS, path string, prev Opened) (*Store, Opened, error) {
	file, err := fsys.OpenFile(path)
	if err != nil {
		return nil, Opened{}, fmt.Errorf("filestore: open session log: %w", err)
	}
	s, opened, err := open(fsys, path, file, prev)
	if err != nil {
		file.Close() // also drops the lock, if it was taken
		return nil, Opened{}, err
	}
	return s, opened, nil
}

func open(fsys FS, path string, file File, prev Opened) (*Store, Opened, error) {
	if err := file.Lock(); err != nil {
		if errors.Is(err, ErrLocked) {
			return nil, Opened{}, fmt.Errorf("filestore: session log %s is %w", path, ErrLocked)
		}
		return nil, Opened{}, fmt.Errorf("filestore: lock session log %s: %w", path, err)
	}
	data, err := readFile(file, len(prev.read))
	if err != nil {
		return nil, Opened{}, fmt.Errorf("filestore: read session log %s: %w", path, err)
	}
	from, known := 0, (*harness.ValidatedHistory)(nil)
	if len(prev.read) > 0 && prev.history != nil && bytes.HasPrefix(data, prev.read) {
		from, known = len(prev.read), prev.history
	}
	history, torn, err := extend(path, data, from, known)
	if err != nil {
		return nil, Opened{}, err
	}
	size := int64(len(data))
	if torn != nil {
		size -= int64(torn.Bytes)
		if err := file.Truncate(size); err != nil {
			return nil, Opened{}, fmt.Errorf("filestore: cut the torn last line of %s: %w", path, err)
		}
	}
	if len(data) > 0 {
		// What was read is the history the agent resumes from. A crash of the process can leave
		// lines written but not yet synced (an append that never returned), and the cut of a torn
		// tail is not durable until synced: read back, they are what the agent goes on from, and
		// a power loss must not take them back after that.
		if err := file.Sync(); err != nil {
			return nil, Opened{}, fmt.Errorf("filestore: sync %s after reading it: %w", path, err)
		}
	}
	if len(data) == 0 {
		// A new (or empty) file: sync its directory too, so the file itself survives a crash.
		if err := fsys.SyncDir(filepath.Dir(path)); err != nil {
			return nil, Opened{}, fmt.Errorf("filestore: sync the directory of %s: %w", path, err)
		}
	}
	s := &Store{path: path, file: file, size: size, validator: history.Validator()}
	return s, Opened{Events: history.Events(), Torn: torn, read: data[:size:size], history: history}, nil
}

// extend is known followed by the complete lines of data after its first from bytes (the lines
// known was read from), validated, and the torn last line.
func extend(path string, data []byte, from int, known *harness.ValidatedHistory) (*harness.ValidatedHistory, *Torn, error) {
	lines := len(known.Events())
	more, torn, err := scan(path, data, from, lines)
	if err != nil {
		return nil, nil, err
	}
	history, err := known.Extend(more)
	if err != nil {
		return nil, nil, refusal(path, known, more)
	}
	return history, torn, nil
}

// refusal is the *FormatError for the first of more (the events after known) that the invariant
// layer refuses, naming its line: Extend, which found it, does not say which it was.
func refusal(path string, known *harness.ValidatedHistory, more []harness.Event) error {
	validator := known.Validator()
	for i, e := range more {
		if err := validator.Append(e); err != nil {
			line := len(known.Events()) + i + 1
			return &FormatError{Path: path, Line: line, Reason: invariantReason(err), Err: err}
		}
	}
	panic("filestore: invariant: the invariant layer refused a history whose every event it accepts")
}

// readFile reads the whole file, into one buffer when the file can tell its size (Sizer), one
// byte longer so that the read itself meets the end. Without a size, or when the file turns out
// longer, the buffer grows as it reads; hint (what an earlier open read) is where it starts then.
func readFile(file File, hint int) ([]byte, error) {
	size := int64(hint) + 512
	if s, ok := file.(Sizer); ok {
		n, err := s.Size()
		if err != nil {
			return nil, err
		}
		size = n + 1
	}
	data := make([]byte, 0, size)
	for {
		if len(data) == cap(data) {
			data = slices.Grow(data, cap(data))
		}
		n, err := file.ReadAt(data[len(data):cap(data)], int64(len(data)))
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Append writes one event as a line, with its newline, in one write, then syncs the file; it
// returns only after both, so an event the session took in is durable before the agent goes on.
// An event the invariant layer refuses against the log so far is not written (the store is not
// broken by it). If the write or the sync fails, the file is cut back to its size before this
// append (best effort) and the store is broken: it no longer knows for sure where its log ends,
// and appending after a possible hole would corrupt it, so every later append is refused.
func (s *Store) Append(e harness.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return fmt.Errorf("filestore: append to %s: %w", s.path, ErrClosed)
	case s.broken != nil:
		return fmt.Errorf("filestore: append to %s refused: %w", s.path, s.broken)
	}
	if err := s.validator.Check(e); err != nil {
		return fmt.Errorf("filestore: append to %s refused: %w", s.path, err)
	}
	if s.line == nil {
		s.line = make([]byte, 0, lineBufferStart)
	}
	line, err := eventjson.Append(s.line[:0], []harness.Event{e})
	if err != nil {
		return fmt.Errorf("filestore: append to %s: %w", s.path, err)
	}
	if cap(line) <= lineBufferMax {
		s.line = line // the next append encodes into it
	}
	if bytes.IndexByte(line[:len(line)-1], '\n') >= 0 {
		panic(fmt.Sprintf("filestore: invariant: event %d encodes with a newline", e.Seq))
	}
	if len(line) > lineBytesMax { // refused before a byte is written: the log stays readable
		return fmt.Errorf("filestore: append to %s refused: event %d (%s) encodes to %d bytes: %w", s.path, e.Seq, e.Type, len(line), ErrLineTooLong)
	}
	if err := s.writeThenSync(line); err != nil { // a File keeps nothing of the store's own line buffer
		return s.fail(e, err)
	}
	s.size += int64(len(line))
	s.validator.Accept(e) // checked above, under the same lock: not judged twice
	return nil
}

// writeThenSync writes the line in one write, then syncs the file: in that order, so that the line
// is durable when it returns.
func (s *Store) writeThenSync(line []byte) error {
	n, err := s.file.Write(line)
	if err == nil && n != len(line) {
		err = io.ErrShortWrite
	}
	if err != nil {
		return err
	}
	return s.file.Sync()
}

// fail cuts the file back to where this append began and breaks the store.
func (s *Store) fail(e harness.Event, cause error) error {
	s.broken = fmt.Errorf("%w: event %d (%s) failed to become durable: %w", ErrBroken, e.Seq, e.Type, cause)
	if err := s.file.Truncate(s.size); err == nil {
		s.file.Sync()
	}
	return fmt.Errorf("filestore: append to %s: %w", s.path, s.broken)
}

// Size returns the length in bytes of the log's durable content: the file's size after Open and
// every append that succeeded.
func (s *Store) Size() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.size
}

// Close releases the lock and closes the file. Closing twice is fine; appends after Close fail.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	unlockErr := s.file.Unlock()
	if err := s.file.Close(); err != nil {
		return fmt.Errorf("filestore: close %s: %w", s.path, err)
	}
	if unlockErr != nil {
		return fmt.Errorf("filestore: unlock %s: %w", s.path, unlockErr)
	}
	return nil
}
