package eventjson

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
)

// requireSameDecoding decodes line with decodeLine and with Event.UnmarshalJSON, encoding/json's
// reading of an event: the same event or the same error. encoding/json is handed the line as
// Decode reads it, without the carriage return a CRLF log leaves at its end (a fuzzed line ending
// in the middle of an escape got encoding/json's message about the '\r' itself).
func requireSameDecoding(t *testing.T, raw []byte) {
	line := bytes.TrimSuffix(raw, []byte{'\r'})
	var want harness.Event
	errWant := want.UnmarshalJSON(line)
	got, err := decodeLine(string(raw))
	if strings.TrimSpace(string(line)) == "" {
		require.ErrorIs(t, err, ErrBlankLine)
		return
	}
	if errWant != nil {
		require.EqualError(t, err, errWant.Error(), "line %q", line)
		_, ok := parseEvent(string(line))
		require.False(t, ok, "the parser accepted a line encoding/json refuses: %q", line)
		return
	}
	require.NoError(t, err, "line %q", line)
	require.Equal(t, want, got, "line %q", line)
}

// requireSameEncoding encodes e with Append and with json.Marshal: the same bytes (and the
// newline), or both refused.
func requireSameEncoding(t *testing.T, e harness.Event) {
	want, errWant := json.Marshal(e)
	got, errGot := Append(nil, []harness.Event{e})
	if errWant != nil {
		require.Error(t, errGot, "%+v", e)
		return
	}
	require.NoError(t, errGot)
	require.Equal(t, string(want)+"\n", string(got))
}

// FuzzCodecMatchesEncodingJSON: the codec is encoding/json, byte for byte and error for error.
// Any line decodes (or fails) exactly as encoding/json decodes it, and any event of the fourteen
// types, whatever its strings and numbers (invalid UTF-8, HTML characters, NaN), encodes to the
// bytes json.Marshal writes, which decode back the same way.
func FuzzCodecMatchesEncodingJSON(f *testing.F) {
	for _, e := range codecEvents("a \"quoted\" <b>&\\ \t\x01 é \xff", 7, 512.5) {
		line, err := Append(nil, []harness.Event{e})
		require.NoError(f, err)
		f.Add(line[:len(line)-1], "x", int64(1), 0.25)
	}
	for _, line := range fallbackLines {
		f.Add([]byte(line), "\xed\xa0\x80", int64(-1), math.Inf(1))
	}
	for _, line := range edgeLines {
		f.Add([]byte(line), "", int64(math.MinInt64), 0.0)
	}
	f.Add([]byte(`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1}}`), "{\"a\":1}", int64(math.MaxInt64), 1e-7)
	f.Fuzz(func(t *testing.T, line []byte, text string, number int64, delay float64) {
		requireSameDecoding(t, line)
		for _, e := range codecEvents(text, number, delay) {
			requireSameEncoding(t, e)
			if encoded, err := Append(nil, []harness.Event{e}); err == nil {
				requireSameDecoding(t, encoded[:len(encoded)-1])
			}
		}
	})
}

// fallbackLines are spellings the parser leaves to encoding/json, each for its own reason.
var fallbackLines = []string{
	`{"seq":1,"type":"turn/start","time":0,"data":{"Turn":1}}`,                          // another letter case
	`{"SEQ":1,"type":"turn/start","time":0,"data":{"turn":1}}`,                          // another letter case, outside
	`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1,"turn":2}}`,                 // a repeated key
	`{"seq":1,"type":"turn/start","time":0,"data":{"turn":null}}`,                       // null
	`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1e2}}`,                        // an exponent for an int
	`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1.0}}`,                        // a fraction for an int
	`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1,"x":2}}`,                    // an unknown field in data
	`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1},"x":2}`,                    // an unknown field outside
	`{"data":{"turn":1},"seq":1,"type":"turn/start","time":0}`,                          // data before type
	`{"seq":1,"type":"turn/start","data":{"turn":1}}`,                                   // no time
	`{"seq":1,"type":"turn/stop","time":0,"data":{"turn":1}}`,                           // an unknown type
	`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1}} x`,                        // trailing data
	`{"seq":1,"type":"turn/start","time":0,"data":{"turn":99999999999999999999}}`,       // overflow
	`{"seq":1,"type":"user/message","time":0,"data":{"message":{"id":"\'","text":""}}}`, // an escape JSON lacks
	`{"seq":1,"type":"user/message","time":0,"data":{"message":{"id":"\ud83d\ude00 \ud800x \u00e9","text":"a\/b"}}}`,
	`{"seq":1,"type":"tool/result","time":0,"data":{"turn":1,"step":1,"callId":"c","isError":tru,"content":""}}`,
	`{"seq":1,"type":"llm/retry","time":0,"data":{"delayMs":1e400}}`,
	` {"seq" : 1 , "type":"step/end",` + "\n\t" + `"time":-0,"data":{ }} `,
	`{"seq":01,"type":"step/end","time":0,"data":{}}`,
	`{"seq":1,"type":"assistant/message","time":0,"data":{"message":{"blocks":null}}}`,
	`{"seq":1,"type":"assistant/message","time":0,"data":{"message":{"blocks":[{"type":"text"},]}}}`,
	`{"seq":1,"type":"turn/end","time":0,"data":{"reason":{"error":{"code":"a"},"error":{"message":"m"}}}}`, // a repeat encoding/json merges
	`{"se\u0071":1,"type":"step/end","time":0,"data":{}}`,                                                   // an escaped key
	"",
	" \t",
	"{",
	`{"seq":1,"type":"` + strings.Repeat("é", 3) + "\xff" + `","time":0,"data":{}}`,
}

// edgeLines sit at the edges of the parser's reading: integers at the int64 limits and one past
// them, spacing around every key and value, repeated keys and empty ones, optional keys in
// another order.
var edgeLines = []string{
	`{"seq":999999999999999999,"type":"step/end","time":-999999999999999999,"data":{"turn":1,"step":2}}`,
	`{"seq":9223372036854775807,"type":"step/end","time":-9223372036854775808,"data":{"turn":1,"step":2}}`,
	`{"seq":9223372036854775808,"type":"step/end","time":0,"data":{"turn":1,"step":2}}`,
	`{"seq":1,"type":"step/end","time":-9223372036854775809,"data":{"turn":1,"step":2}}`,
	`{"seq":-0,"type":"step/end","time":0,"data":{"turn":-01,"step":2}}`,
	`{"seq":1,"type":"step/end","time":0,"data":{"turn":-,"step":2}}`,
	`{"seq":1,"type":"step/end","time":0,"data":{"turn":1.5e3,"step":2}}`,
	`{"seq":1,"type":"step/end","time":0,"data":{"turn":1E+2,"step":2}}`,
	`{"seq":1 ,"type" :"step/end", "time": 0 ,` + "\r\n" + `"data":{"turn" : 1 ,"step":2 } }`,
	`{"seq":1,"type":"step/end","time":0,"data":{,"turn":1}}`,
	`{"seq":1,"type":"step/end","time":0,"data":{"turn":1 "step":2}}`,
	`{"seq":1,"type":"tool/call","time":0,"data":{"turn":1,"step":2,"callId":"c","name":"n","arguments":"{}","turn":3}}`,
	`{"seq":1,"type":"tool/call","time":0,"data":{"turn":1,"step":2,"turn":1}}`,
	`{"seq":1,"type":"tool/call","time":0,"data":{"":1}}`,
	`{"seq":1,"type":"tool/call","time":0,"data":{"turn":1,"step":2,"callId":"c\u0041","name":"a long plain name of more than eight bytes"}}`,
	`{"seq":1,"type":"assistant/chunk","time":0,"data":{"turn":1,"step":2,"chunk":{"kind":"k","name":"n","text":"t"}}}`,
	`{"seq":1,"type":"turn/end","time":0,"data":{"turn":1,"reason":{"kind":"aborted","error":{"code":"c","message":"m","status":500},"reason":{"kind":"user"}}}}`,
	`{"seq":1,"type":"llm/retry","time":0,"data":{"retryId":"r","turn":1,"step":1,"provider":"p","mode":"normal","policyKey":"k","retry":1,"delayMs":5,"maxRetries":3,"failure":{"code":"c","message":"m"}}}`,
	`{"seq":1,"type":"tool/result","time":0,"data":{"turn":1,"step":2,"callId":"c","isError":true,"content":"x","error":{"name":"n","code":"c","message":"m"},"turn":3}}`,
	`{"seq":1,"type":"tool/result","time":0,"data":{"isError":false,"content":"a\"b\\c\/d\b\f\n\r\t\u00e9\u2028"}}`,
	`{"seq":1,"type":"step/end","time":0,"data":{"turn":1,"step":2}}` + " \t",
	`{"seq":1,"type":"inbox/claim","time":0,"data":{"turn":1,"step":2,"lane":"next-step" ,"messageId":"m"}}`,
	`{"seq":1,"type":"user/message","time":0,"data":{"message":{"id":"é` + "\xff" + `","text":"\ud800\udc00\ud800\u0041"}}}`,
}

// Every fallback spelling, and every edge of the parser, gets encoding/json's answer, and the
// lines the codec writes are read by the parser itself.
func TestCodecFallsBackExactly(t *testing.T) {
	for _, line := range append(fallbackLines, edgeLines...) {
		requireSameDecoding(t, []byte(line))
	}
	for _, e := range codecEvents("plain", 3, 12) {
		line, err := Append(nil, []harness.Event{e})
		require.NoError(t, err)
		_, ok := parseEvent(string(line[:len(line)-1]))
		require.True(t, ok, "the parser reads what the codec writes: %s", line)
	}
}
