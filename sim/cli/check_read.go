package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/turnsim/turnsim/harness"
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
		for {
			chunk, err := r.ReadSlice('\n')
			line = append(line, chunk...)
			if len(line) > lineBytesMax {
				return nil, fmt.Sprintf("line %d: longer than the %s a session log line may hold (harness.LineBytesMax; the harness's store refuses to write one)", n, byteSize(int64(lineBytesMax)))
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				readErr = err
				break
			}
		}
		total += int64(len(line))
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
		if _, err := harness.DecodeEvent(text); err != nil {
			return nil, oneLine(fmt.Sprintf("line %d: %s", n, err.Error()))
		}
	}
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
