package eventjson

import (
	"bufio"
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
)

// readLines is the reference reader: bufio.Scanner's lines, each decoded by Event.UnmarshalJSON
// (encoding/json), a blank one refused.
func readLines(data []byte) ([]harness.Event, error) {
	var events []harness.Event
	scanner := bufio.NewScanner(bytes.NewReader(data))
	scanner.Buffer(nil, harness.LineBytesMax)
	for line := 1; scanner.Scan(); line++ {
		if len(bytes.TrimSpace(scanner.Bytes())) == 0 {
			return events, fmt.Errorf("line %d: %w", line, ErrBlankLine)
		}
		var e harness.Event
		if err := e.UnmarshalJSON(scanner.Bytes()); err != nil {
			return events, fmt.Errorf("line %d: %w", line, err)
		}
		events = append(events, e)
	}
	return events, scanner.Err()
}

var errorLinePrefix = regexp.MustCompile(`^line [1-9][0-9]*: `)

// FuzzRead: whatever the input, Read answers as the reference reader does (the same events and
// the same error, which names its line first), and what it accepts survives a round trip through
// Write unchanged.
//
// The round trip is compared on events, not on bytes: the reader accepts spellings the writer
// never produces (keys in any letter case or order, spacing, escapes, 1e2 for 100, "\r\n" line
// ends, invalid UTF-8 that decodes to U+FFFD), and those are normalised on the way in.
func FuzzRead(f *testing.F) {
	var valid bytes.Buffer
	if err := Write(&valid, validLog()); err != nil {
		f.Fatal(err)
	}
	f.Add(valid.Bytes())
	for _, line := range bytes.SplitAfter(valid.Bytes(), []byte("\n")) {
		f.Add(line)
	}
	for _, seed := range []string{
		"",
		"\n",
		"\r\n",
		valid.String()[:valid.Len()/2],
		string(bytes.ReplaceAll(valid.Bytes(), []byte("\n"), []byte("\r\n"))),
		`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1}}` + "\r\n" + `{"SEQ":2,"Type":"turn/end","time":1e2,"data":{"turn":1,"reason":{"kind":"completed"}}}`,
		`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1}}` + "\n\n",
		`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1}} ` + "\n" + "{oops\n",
		`{"seq":1,"type":"turn/pause","time":0,"data":{}}`,
		`{"seq":1,"type":"turn/start","time":0,"data":null}`,
		`{"seq":1,"type":"turn/start","time":0}`,
		`{"type":"turn/start","time":0,"data":{"turn":1}}`,
		`{"seq":1,"type":"turn/start","time":null,"data":{"turn":1}}`,
		`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1,"extra":true}}`,
		`{"seq":1.5,"type":"turn/start","time":0,"data":{"turn":1}}`,
		`{"seq":1,"type":"llm/retry","time":0,"data":{"delayMs":1e400}}`,
		`{"seq":1,"type":"llm/retry","time":0,"data":{"delayMs":-0,"maxRetries":null,"failure":{"status":99999999999999999999}}}`,
		`{"seq":1,"type":"user/message","time":0,"data":{"message":{"id":"\ud800","text":"` + "\xff\xfe" + `"}}}`,
		`{"seq":1,"type":"assistant/message","time":0,"data":{"message":{"blocks":[]}}}`,
		`{"seq":1,"type":"assistant/message","time":0,"data":{"message":{"blocks":null}}}`,
		`{"type":"turn/start","seq":1,"time":0,"data":{"turn":1}}` + "\n",
		`[1,2,3]`,
		`"just a string"`,
		`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1}} trailing`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		want, wantErr := readLines(input)
		events, err := Read(bytes.NewReader(input))
		require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(err))
		if !reflect.DeepEqual(want, events) && (len(want) > 0 || len(events) > 0) {
			t.Fatalf("Read gave %v, the reference reader %v", events, want)
		}
		if err != nil {
			require.Regexp(t, errorLinePrefix, err.Error())
			return
		}
		var again bytes.Buffer
		require.NoError(t, Write(&again, events))
		back, err := Read(&again)
		require.NoError(t, err, "what the reader accepted, the writer writes readably")
		require.Equal(t, events, back)
	})
}
