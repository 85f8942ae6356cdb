package filestore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/eventjson"
)

// tornTextMax is how much of a torn line Torn keeps: enough to recognise it, not the whole line.
const tornTextMax = 80

// Torn describes a torn last line: the bytes after the log's last newline, which a write cut
// short by a crash left behind. The store appends every line with its newline in one write and
// syncs it before the append returns, so a line without its newline was never acknowledged to
// anyone: cutting it off loses nothing that was promised.
type Torn struct {
	// Line is the torn line's number, 1-based.
	Line int
	// Bytes is how many bytes it held.
	Bytes int
	// Text is the start of it, at most 80 bytes, cut at a UTF-8 boundary.
	Text string
}

// FormatError is a session log that cannot be trusted as it stands: a complete line that does
// not decode, a blank line, or an event the invariant layer refuses. Open leaves such a file
// byte-for-byte untouched, so a person can look at it and decide.
type FormatError struct {
	Path   string
	Line   int
	Reason string
	// Err is the underlying error, if any (a *harness.InvariantError for a refused event).
	Err error
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("filestore: %s:%d: %s", e.Path, e.Line, e.Reason)
}

// Unwrap returns the underlying error, so errors.As finds a *harness.InvariantError.
func (e *FormatError) Unwrap() error { return e.Err }

// Scan decodes the bytes of a session log the way Open reads a file (eventjson.Decode), and
// changes nothing. It does not run the invariant layer: a reader that wants every breakage (as
// `simrun check` does) replays the events itself. Event i (0-based) is on line i+1.
//
// A last line without its newline is torn: it is not decoded, and comes back in torn. A complete
// line that does not decode, or a blank one, is a *FormatError naming path (used in messages
// only) and the line.
func Scan(path string, data []byte) (events []harness.Event, torn *Torn, err error) {
	return scan(path, data, 0, 0)
}

// scan is Scan of data whose first from bytes are complete lines already decoded (lines of them,
// one event a line): it decodes only the lines after them, and returns their events, numbering
// lines from lines+1.
func scan(path string, data []byte, from, lines int) (events []harness.Event, torn *Torn, err error) {
	complete, torn := completeLines(data, from, lines)
	events, err = eventjson.Decode(complete)
	var bad *eventjson.LineError
	if errors.As(err, &bad) {
		return events, torn, &FormatError{Path: path, Line: lines + bad.Line, Reason: bad.Err.Error(), Err: bad.Err}
	}
	if err == nil && torn != nil {
		if reason := notTorn(data[len(data)-torn.Bytes:]); reason != "" {
			return events, nil, &FormatError{Path: path, Line: torn.Line, Reason: "a last line without its newline, but not the start of an event line a write cut short: " + reason}
		}
	}
	return events, torn, err
}

// notTorn says why rest, the bytes after a log's last newline, cannot be what a write cut short
// left of an event's line ("" when it can be): such a line is the start of a JSON object, valid
// UTF-8 (but for a rune cut in two at its end) without a control byte (JSON escapes them; a
// carriage return may end it, before the newline that did not come), and, if the object is
// whole, an event.
func notTorn(rest []byte) string {
	if rest[0] != '{' {
		return fmt.Sprintf("it starts with %q, not {", rest[:min(len(rest), 8)])
	}
	text := bytes.TrimSuffix(rest, []byte{'\r'})
	if i := bytes.IndexFunc(text, func(r rune) bool { return r < 0x20 }); i >= 0 {
		return fmt.Sprintf("byte %d is the control byte %#02x", i+1, text[i])
	}
	whole := text
	for n := 0; n < utf8.UTFMax-1 && len(whole) > 1 && !utf8.Valid(whole); n++ {
		whole = whole[:len(whole)-1] // the end of a rune the cut split in two
	}
	if !utf8.Valid(whole) {
		return "it is not UTF-8"
	}
	if json.Valid(text) {
		if _, err := eventjson.Decode(text); err != nil {
			return "it is a whole JSON object, but no event: " + err.Error()
		}
	}
	return ""
}

// completeLines is data after its first from bytes (complete lines, lines of them) up to its last
// newline, and the torn line after that newline, if any.
func completeLines(data []byte, from, lines int) (complete []byte, torn *Torn) {
	complete = data[from:]
	if i := bytes.LastIndexByte(complete, '\n'); i+1 < len(complete) {
		complete = complete[:i+1]
		torn = tornLine(data[from+i+1:], lines+bytes.Count(complete, []byte{'\n'})+1)
	}
	return complete, torn
}

func tornLine(rest []byte, line int) *Torn {
	text := rest[:min(len(rest), tornTextMax)]
	if len(text) < len(rest) {
		// Do not split a rune at the limit: drop the trailing bytes of a partial one.
		for range utf8.UTFMax - 1 {
			if r, size := utf8.DecodeLastRune(text); r != utf8.RuneError || size != 1 {
				break
			}
			text = text[:len(text)-1]
		}
	}
	return &Torn{Line: line, Bytes: len(rest), Text: string(text)}
}

// invariantReason renders an invariant refusal without the harness's own prefix, which the
// FormatError's already names.
func invariantReason(err error) string {
	var ie *harness.InvariantError
	if errors.As(err, &ie) {
		return fmt.Sprintf("invariant %s: event %d (%s): %s", ie.Rule, ie.Seq, ie.Type, ie.Reason)
	}
	return err.Error()
}
