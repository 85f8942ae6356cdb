package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/internal/jsonlimit"
)

// readLog reads the session log at path line by line, decoding each complete line as it comes,
// and stops at the first line that makes the log unreadable (a line longer than the reader
// takes, a blank line, a line that does not decode, more bytes than a log may hold): reason says
// which, "" when there is none. So a huge file with garbage early costs what its first lines
// do, and a bad file never costs more than one line's memory.
//
// A regular file is read again whole once it is known to decode (data is nil here); a pipe or a
// device cannot be read twice, so its bytes are kept as they come (data).
func readLog(path string) (data []byte, reason string) {
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, pathErrorText(err)
	}
	defer f.Close()
	info, err := f.Stat()
	switch {
	case err != nil:
		return nil, pathErrorText(err)
	case info.IsDir():
		return nil, "is a directory, not a session log"
	case info.Mode().IsRegular() && info.Size() > sessionLogBytesMax:
		return nil, fmt.Sprintf("%s, over the %s a session log given to check may hold", byteSize(info.Size()), byteSize(sessionLogBytesMax))
	}
	keep := !info.Mode().IsRegular()
	r := bufio.NewReaderSize(f, 64<<10)
	var line, kept []byte
	var total int64
	for n := 1; ; n++ {
		line = line[:0]
		var readErr error
		garbage, length := "", 0
		syntaxCheckAt := syntaxCheckFirst
		for {
			chunk, err := r.ReadSlice('\n')
			length += len(chunk)
			if length > lineBytesMax {
				return nil, fmt.Sprintf("line %d: longer than the %s a session log line may hold (harness.LineBytesMax; the harness's store refuses to write one)", n, byteSize(int64(lineBytesMax)))
			}
			// Garbage is known by its first byte, or by the first byte that breaks JSON's
			// syntax once the line has grown long: the rest of its line is only counted (a
			// pipe's keeps a few bytes more, so that the full read still sees a torn last line
			// where it is), so that a huge one costs no memory; it is torn, not an error, if no
			// newline ends it.
			switch {
			case garbage == "":
				line = appendBounded(line, chunk, lineBytesMax)
			case keep && len(line) < garbageKeptMax:
				line = append(line, chunk[:min(len(chunk), garbageKeptMax-len(line))]...)
			}
			if garbage == "" {
				garbage = notAnEvent(line, n)
			}
			if garbage == "" && len(line) >= syntaxCheckAt {
				garbage = notJSON(line, n)
				syntaxCheckAt *= 2
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				readErr = err
				break
			}
		}
		if garbage != "" && readErr == nil {
			return nil, garbage
		}
		total += int64(length)
		if total > sessionLogBytesMax {
			return nil, fmt.Sprintf("over the %s a session log given to check may hold", byteSize(sessionLogBytesMax))
		}
		if keep {
			kept = append(kept, line...)
		}
		switch {
		case errors.Is(readErr, io.EOF):
			// The end: a last line without its newline is torn, which the full read reports.
			if keep && kept == nil {
				kept = []byte{}
			}
			return kept, ""
		case readErr != nil:
			return nil, pathErrorText(readErr)
		}
		text := line[:len(line)-1]
		if len(bytes.TrimSpace(text)) == 0 {
			return nil, fmt.Sprintf("line %d: blank line (the harness never writes one)", n)
		}
		if err := decodeEvent(text); err != nil {
			return nil, oneLine(fmt.Sprintf("line %d: %s", n, err.Error()))
		}
	}
}

// lineGrowthMax is the longest line buffer grown by doubling; past it, the buffer grows straight
// to the line limit, so that the old and the new buffer never both hold tens of MiB.
const lineGrowthMax = 1 << 20

// appendBounded appends chunk to line, growing it to at most limit bytes (and the chunk): append's
// own growth, and doubling, would keep a 32 MiB buffer and a 64 MiB one alive at once.
func appendBounded(line, chunk []byte, limit int) []byte {
	if need := len(line) + len(chunk); need > cap(line) {
		size := max(2*cap(line), need, 4096)
		if size > lineGrowthMax {
			size = max(limit, need)
		}
		grown := make([]byte, len(line), size)
		copy(grown, line)
		line = grown
	}
	return append(line, chunk...)
}

// notAnEvent says why a line, read so far, can never be an event: an event is a JSON object, so
// a line whose first byte past any whitespace is not '{' is garbage, whatever follows (a file
// of zeros, a binary); the decoder's own words say so. "" when the line may still be one.
func notAnEvent(line []byte, n int) string {
	text := bytes.TrimLeft(line, " \t\r\n")
	if len(text) == 0 || text[0] == '{' {
		return ""
	}
	err := decodeEvent(text[:min(len(text), 64)])
	if err == nil {
		return ""
	}
	return oneLine(fmt.Sprintf("line %d: %s", n, err.Error()))
}

// A long line is checked for JSON's syntax when it reaches syntaxCheckFirst bytes and at every
// doubling after (so the checks cost no more than reading it once more): a line of a brace and
// a hundred megabytes of zeros is garbage at its second byte, and must not be held whole.
const syntaxCheckFirst = 1 << 20

// garbageKeptMax is how much of a garbage line a pipe's read keeps.
const garbageKeptMax = 64

// notJSON says why a line, read so far, can never be an event because it already breaks JSON's
// syntax (in the decoder's words); "" when what was read may still be JSON. The last bytes read
// are not judged: a character or an escape may be cut there.
func notJSON(line []byte, n int) string {
	var e *jsonlimit.Error
	err := jsonlimit.CheckBytes(line, jsonlimit.Limits{Depth: math.MaxInt32})
	if !errors.As(err, &e) || e.Limit || e.Offset >= int64(len(line))-8 {
		return ""
	}
	if err := decodeEvent(line[:e.Offset+1]); err != nil {
		return oneLine(fmt.Sprintf("line %d: %s", n, err.Error()))
	}
	return oneLine(fmt.Sprintf("line %d: %s", n, strings.TrimPrefix(e.Error(), "jsonlimit: ")))
}

// readAtMost reads the file at path, refusing one that holds more than limit bytes.
func readAtMost(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errors.New(pathErrorText(err))
	}
	defer f.Close()
	var buffer bytes.Buffer
	if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
		buffer.Grow(int(min(info.Size(), limit)) + bytes.MinRead) // one allocation, not doublings
	}
	if _, err := buffer.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, errors.New(pathErrorText(err))
	}
	data := buffer.Bytes()
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("over the %s a session log given to check may hold", byteSize(limit))
	}
	return data, nil
}

// decodeEvent decodes one line as an event, as json.Unmarshal does: the error, if any, in
// encoding/json's words, which name what is wrong with the line.
func decodeEvent(line []byte) error {
	var e harness.Event
	return json.Unmarshal(line, &e)
}
