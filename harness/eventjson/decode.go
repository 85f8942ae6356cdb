package eventjson

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/turnsim/turnsim/harness"
)

// LineError is a line of a log that does not decode. Line is its number, from 1; Err says what is
// wrong with it: encoding/json's error (from Event.UnmarshalJSON), or ErrBlankLine, or
// ErrLineTooLong.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns what is wrong with the line.
func (e *LineError) Unwrap() error { return e.Err }

var (
	// ErrBlankLine is a line of nothing but spacing: the harness never writes one, so a log that
	// has one was changed by something else.
	ErrBlankLine = errors.New("blank line (the harness never writes one)")
	// ErrLineTooLong is a line longer than harness.LineBytesMax, its newline included, which no
	// store of the harness writes.
	ErrLineTooLong = errors.New("line longer than a session log line may be (harness.LineBytesMax)")
)

// Decode decodes a JSON Lines session log held in memory, one event a line. A last line without
// its newline is read like the others, and a carriage return before a newline is dropped, as
// bufio.Scanner's lines are. The first line that does not decode ends it with a *LineError; the
// events before that line come back with it.
//
// The log's text is copied once, and the events' strings are parts of that copy: the events keep
// nothing of data, which the caller may change or reuse at once.
func Decode(data []byte) ([]harness.Event, error) {
	if len(data) == 0 {
		return nil, nil
	}
	lines := bytes.Count(data, []byte{'\n'})
	if data[len(data)-1] != '\n' {
		lines++
	}
	events := make([]harness.Event, 0, lines)
	text := string(data)
	for n := 1; text != ""; n++ {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		e, err := decodeLine(line)
		if err != nil {
			return events, &LineError{Line: n, Err: err}
		}
		events = append(events, e)
	}
	return events, nil
}

// Read decodes a JSON Lines session log from r, as Decode does; an error reading r is returned as
// it is, wrapped.
func Read(r io.Reader) ([]harness.Event, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("eventjson: read log: %w", err)
	}
	return Decode(data)
}

// decodeLine decodes one line (without its newline): by parseEvent when it can, by
// Event.UnmarshalJSON (encoding/json) otherwise, whose answer is the line's.
func decodeLine(line string) (harness.Event, error) {
	line = strings.TrimSuffix(line, "\r")
	if len(line)+1 > harness.LineBytesMax {
		return harness.Event{}, ErrLineTooLong
	}
	if e, ok := parseEvent(line); ok {
		return e, nil
	}
	if strings.TrimSpace(line) == "" {
		return harness.Event{}, ErrBlankLine
	}
	var e harness.Event
	err := e.UnmarshalJSON([]byte(line))
	return e, err
}
