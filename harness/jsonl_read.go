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
func DecodeJSONL(data []byte) ([]Event, error) { return decodeJSONLAppend(nil, data, false, nil, 0) }

// DecodeJSONLShared is DecodeJSONL without copying the log's text: the events' strings are
// substrings of data itself. It is for a caller that owns data and never changes it while the
// events are in use (a file store's own read buffer, a property that compares the events and
// drops them); a change to data would change the events' strings under them.
func DecodeJSONLShared(data []byte) ([]Event, error) {
	return decodeJSONLAppend(nil, data, true, nil, 0)
}

// decodeJSONLAppend is dst followed by DecodeJSONL(data) (DecodeJSONLShared's if shared), the
// events decoded in place in dst's room when it has room for them all, and otherwise in a new
// array with dst's events copied first and room for room more events past them (a history's room
// for the session that resumes from it: ValidatedHistory.ExtendJSONLShared). With slabs set, the
// payloads are decoded into them: a JSONLDecoder's memory. On an error the answer is ReadJSONL's
// own (its events, not dst's).
func decodeJSONLAppend(dst []Event, data []byte, shared bool, slabs *payloadSlabs, room int) ([]Event, error) {
	if len(data) == 0 { // ReadJSONL's answer, without its 4 KB line buffer (a reopen that gained nothing)
		if len(dst) == 0 {
			return nil, nil // nil, as ReadJSONL answers, not a decoder's empty slice
		}
		return dst, nil
	}
	if data[len(data)-1] != '\n' {
		return readJSONLAppend(dst, data)
	}
	var text string
	if shared {
		text = unsafe.String(unsafe.SliceData(data), len(data))
	} else {
		text = string(data)
	}
	// One event a line, each decoded in its place in the slice rather than copied there.
	known := len(dst)
	if lines := strings.Count(text, "\n"); cap(dst)-known < lines {
		dst = append(make([]Event, 0, known+lines+room), dst...)
		dst = dst[:known+lines] // each new element written whole by decodeEventTextInto
	} else {
		dst = dst[:known+lines]
	}
	n := known
	for rest := text; rest != ""; n++ {
		end := strings.IndexByte(rest, '\n') // rest ends in '\n'
		line := rest[:end]
		rest = rest[end+1:]
		if end == 0 || end >= LineBytesMax/2 || line[end-1] == '\r' {
			return readJSONLAppend(dst[:known], data)
		}
		if decodeEventTextInto(&dst[n], line, slabs) {
			continue
		}
		if strings.TrimSpace(line) == "" { // a blank line: checked only now, as the fast path refuses it
			return readJSONLAppend(dst[:known], data)
		}
		if err := dst[n].unmarshalStandard([]byte(line)); err != nil {
			return readJSONLAppend(dst[:known], data) // its error names the line
		}
	}
	return dst[:n], nil
}

// readJSONLAppend is dst followed by ReadJSONL's events of data, or ReadJSONL's error (with its
// events, as it answers). An empty dst takes ReadJSONL's slice as it is.
func readJSONLAppend(dst []Event, data []byte) ([]Event, error) {
	events, err := ReadJSONL(bytes.NewReader(data))
	if err != nil || len(dst) == 0 {
		return events, err
	}
	return append(dst, events...), nil
}
