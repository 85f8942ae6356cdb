package harness

import (
	"bytes"
	"strings"
	"unsafe"
)

// DecodeJSONL is ReadJSONL(bytes.NewReader(data)) for a log already in memory: the same events,
// or the same error. The log's text is copied once and its lines decoded in place (the events'
// strings are substrings of that copy, which they keep alive), into a slice sized by counting
// the lines first; ReadJSONL copies each line into its scanner's buffer and each again to decode
// it. Anything out of the ordinary (a last line without its newline, a carriage return, a blank
// or very long line, a line that does not decode) is left to ReadJSONL, whose answer it is.
func DecodeJSONL(data []byte) ([]Event, error) { return decodeJSONLInto(data, false, nil, nil) }

// DecodeJSONLShared is DecodeJSONL without copying the log's text: the events' strings are
// substrings of data itself. It is for a caller that owns data and never changes it while the
// events are in use (a file store's own read buffer, a property that compares the events and
// drops them); a change to data would change the events' strings under them.
func DecodeJSONLShared(data []byte) ([]Event, error) { return decodeJSONLInto(data, true, nil, nil) }

// decodeJSONLInto is DecodeJSONL (DecodeJSONLShared if shared). With reuse set, the events are
// decoded into *reuse's array (grown when it is short, and kept in *reuse for the next call) and
// their payloads into slabs: a JSONLDecoder's memory. What ReadJSONL decides is its own, new.
func decodeJSONLInto(data []byte, shared bool, reuse *[]Event, slabs *payloadSlabs) ([]Event, error) {
	if len(data) == 0 {
		return nil, nil // ReadJSONL's answer, without its 4 KB line buffer (a reopen that gained nothing)
	}
	if data[len(data)-1] != '\n' {
		return ReadJSONL(bytes.NewReader(data))
	}
	var text string
	if shared {
		text = unsafe.String(unsafe.SliceData(data), len(data))
	} else {
		text = string(data)
	}
	// One event a line, each decoded in its place in the slice rather than copied there.
	var events []Event
	if lines := strings.Count(text, "\n"); reuse == nil {
		events = make([]Event, lines)
	} else {
		if cap(*reuse) < lines {
			*reuse = make([]Event, lines)
		}
		events = (*reuse)[:lines] // each element written whole by decodeEventTextInto
	}
	n := 0
	for rest := text; rest != ""; n++ {
		end := strings.IndexByte(rest, '\n') // rest ends in '\n'
		line := rest[:end]
		rest = rest[end+1:]
		if end == 0 || end >= LineBytesMax/2 || line[end-1] == '\r' {
			return ReadJSONL(bytes.NewReader(data))
		}
		if decodeEventTextInto(&events[n], line, slabs) {
			continue
		}
		if strings.TrimSpace(line) == "" { // a blank line: checked only now, as the fast path refuses it
			return ReadJSONL(bytes.NewReader(data))
		}
		if err := events[n].unmarshalStandard([]byte(line)); err != nil {
			return ReadJSONL(bytes.NewReader(data)) // its error names the line
		}
	}
	return events[:n], nil
}
