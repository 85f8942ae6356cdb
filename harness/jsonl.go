package harness

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// EncodeEvent renders one event as a JSON line without the trailing newline. Field order is the
// struct order, so equal events give equal bytes.
func EncodeEvent(e Event) ([]byte, error) {
	return appendEventJSON(make([]byte, 0, eventLineSize), e)
}

// eventLineSize is room for a typical line, so that encoding one grows its buffer rarely.
const eventLineSize = 256

// appendEventJSON appends e's line (without the newline): the hand-written encoder's bytes, or
// encoding/json's for what that one leaves to it (the same bytes either way).
func appendEventJSON(dst []byte, e Event) ([]byte, error) {
	if out, ok := appendEvent(dst, e); ok {
		return out, nil
	}
	b, err := json.Marshal(e)
	if err != nil {
		return dst, fmt.Errorf("harness: encode event %d (%s): %w", e.Seq, e.Type, err)
	}
	return append(dst, b...), nil
}

// WriteJSONL writes events as JSON Lines, one event per line.
func WriteJSONL(w io.Writer, events []Event) error {
	b, err := AppendJSONL(make([]byte, 0, len(events)*eventLineSize), events)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// AppendJSONL appends events as JSON Lines to dst: WriteJSONL without a writer, for a caller
// that keeps the bytes.
func AppendJSONL(dst []byte, events []Event) ([]byte, error) {
	for _, e := range events {
		var err error
		if dst, err = appendEventJSON(dst, e); err != nil {
			return dst, err
		}
		dst = append(dst, '\n')
	}
	return dst, nil
}

// DecodeEvent decodes one event line exactly as json.Unmarshal(line, &e) does (the line checked
// as JSON first, then Event.UnmarshalJSON), the same event or the same error, but on the fast
// path a line the harness wrote is read in one pass instead of two.
func DecodeEvent(line []byte) (Event, error) {
	if e, ok := decodeEventFast(line); ok {
		return e, nil
	}
	var e Event
	err := json.Unmarshal(line, &e)
	return e, err
}

// ReadJSONL decodes a JSON Lines session log. An error names the line number and what is wrong
// with it; blank lines are errors too, since the harness never writes one.
func ReadJSONL(r io.Reader) ([]Event, error) {
	var events []Event
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 0, 4096), LineBytesMax) // grows to the longest line; a 64 KB start cost a large allocation per log
	line := 0
	for scanner.Scan() {
		line++
		var e Event
		if len(bytes.TrimSpace(scanner.Bytes())) == 0 {
			return events, fmt.Errorf("line %d: blank line", line)
		}
		if err := e.UnmarshalJSON(scanner.Bytes()); err != nil { // directly: json.Unmarshal would scan the line once more first
			return events, fmt.Errorf("line %d: %w", line, err)
		}
		events = append(events, e)
	}
	if err := scanner.Err(); err != nil {
		return events, fmt.Errorf("line %d: %w", line+1, err)
	}
	return events, nil
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
