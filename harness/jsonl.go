package harness

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/turnsim/turnsim/internal/plant"
)

// EncodeEvent renders one event as a JSON line without the trailing newline. Field order is the
// struct order, so equal events give equal bytes.
func EncodeEvent(e Event) ([]byte, error) {
	if r, ok := e.Data.(LlmRetry); ok && plant.On(plant.EncodeDropsMaxRetries) {
		r.MaxRetries = nil
		e.Data = r
	}
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("harness: encode event %d (%s): %w", e.Seq, e.Type, err)
	}
	return b, nil
}

// WriteJSONL writes events as JSON Lines, one event per line.
func WriteJSONL(w io.Writer, events []Event) error {
	bw := bufio.NewWriter(w)
	for _, e := range events {
		b, err := EncodeEvent(e)
		if err != nil {
			return err
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// ReadJSONL decodes a JSON Lines session log. An error names the line number and what is wrong
// with it; blank lines are errors too, since the harness never writes one.
func ReadJSONL(r io.Reader) ([]Event, error) {
	var events []Event
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 0, 64*1024), 64*1024*1024)
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
