package filestore_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/eventjson"
	"github.com/turnsim/turnsim/harness/filestore"
)

// scanLineByLine is the reference Scan must agree with: each complete line decoded on its own by
// json.Unmarshal.
func scanLineByLine(data []byte) ([]harness.Event, int, error) {
	var events []harness.Event
	complete := data[:bytes.LastIndexByte(data, '\n')+1]
	for line := 1; len(complete) > 0; line++ {
		end := bytes.IndexByte(complete, '\n')
		text := complete[:end]
		complete = complete[end+1:]
		if len(bytes.TrimSpace(text)) == 0 {
			return events, line, fmt.Errorf("blank")
		}
		var e harness.Event
		err := json.Unmarshal(text, &e)
		if err != nil {
			return events, line, err
		}
		events = append(events, e)
	}
	return events, 0, nil
}

// Scan reads what decoding each line on its own reads: the same events, and an error on the
// same line, whatever the bytes (a carriage return, a blank line, a line only encoding/json
// reads, garbage, a torn tail).
func FuzzScanIsLineByLine(f *testing.F) {
	var log bytes.Buffer
	events, next, err := fuzzedLog([]byte{0, 1, 2, 3, 4, 7}, "hi \"there\" é")
	if err != nil {
		f.Fatal(err)
	}
	if err := eventjson.Write(&log, events); err != nil {
		f.Fatal(err)
	}
	f.Add(bytes.Clone(log.Bytes()))
	f.Add(append(bytes.Clone(log.Bytes()), next[:10]...))
	f.Add(bytes.ReplaceAll(log.Bytes(), []byte("\n"), []byte("\r\n")))
	f.Add(append(bytes.Clone(log.Bytes()), "\n{oops\n"...))
	f.Add([]byte(`{"type":"turn/start","seq":1,"time":0,"data":{"turn":1}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantLine, wantErr := scanLineByLine(data)
		got, _, err := filestore.Scan("log", data)
		var gotLine int
		if fe, ok := err.(*filestore.FormatError); ok {
			gotLine = fe.Line
		} else if err != nil {
			t.Fatalf("Scan: not a FormatError: %v", err)
		}
		if (err == nil) != (wantErr == nil) || gotLine != wantLine {
			t.Fatalf("Scan: error %v on line %d; line by line: %v on line %d", err, gotLine, wantErr, wantLine)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("Scan read %d events, line by line %d", len(got), len(want))
		}
	})
}
