package eventjson

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
)

// The fields are written in struct order, optional ones only when set, and the lines read back
// to the same events, which the invariant layer accepts.
func TestLinesHaveAFixedFieldOrderAndReadBack(t *testing.T) {
	events := validLog()
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, events))
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	require.Len(t, lines, len(events))
	assert.Equal(t, `{"seq":6,"type":"llm/retry","time":1700000001250,"data":{"retryId":"r1","turn":1,"step":1,"provider":"p","mode":"normal","policyKey":"k","retry":1,"maxRetries":2,"delayMs":512.5,"failure":{"code":"RATE_LIMIT","message":"429","status":429,"providerRetryAfterMs":0.25,"requestId":"req-1"}}}`, lines[5])
	assert.Equal(t, `{"seq":14,"type":"turn/end","time":1700000003250,"data":{"turn":1,"reason":{"kind":"aborted","reason":{"kind":"hook","reason":"budget"}}}}`, lines[13])

	back, err := Read(&buf)
	require.NoError(t, err)
	assert.Equal(t, events, back)
	require.NoError(t, harness.ValidateLog(back))
}

// A line that does not decode is a *LineError naming it, with the events before it.
func TestDecodeNamesTheBadLine(t *testing.T) {
	first := `{"seq":1,"type":"turn/start","time":0,"data":{"turn":1}}` + "\n"
	cases := map[string]struct {
		second string
		is     error
	}{
		"not json":      {"{oops\n", nil},
		"unknown type":  {`{"seq":2,"type":"turn/pause","time":0,"data":{}}` + "\n", nil},
		"unknown field": {`{"seq":2,"type":"turn/end","time":0,"data":{"turn":1,"why":1}}` + "\n", nil},
		"missing seq":   {`{"type":"turn/end","time":0,"data":{}}`, nil},
		"blank line":    {" \r\n", ErrBlankLine},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			events, err := Decode([]byte(first + c.second))
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), "line 2: "), err.Error())
			var lineErr *LineError
			require.True(t, errors.As(err, &lineErr))
			assert.Equal(t, 2, lineErr.Line)
			if c.is != nil {
				assert.ErrorIs(t, err, c.is)
			}
			require.Len(t, events, 1)
			assert.Equal(t, int64(1), events[0].Seq)
		})
	}
}

// The events keep nothing of the bytes they were decoded from: a caller may reuse them at once.
func TestDecodeCopiesTheText(t *testing.T) {
	var log bytes.Buffer
	chunk := harness.AssistantChunk{Turn: 1, Step: 1, Chunk: harness.Chunk{Kind: harness.ChunkText, Text: "hello"}}
	require.NoError(t, Write(&log, []harness.Event{{Seq: 1, Type: chunk.EventType(), Data: chunk}}))
	data := log.Bytes()
	events, err := Decode(data)
	require.NoError(t, err)
	data[bytes.Index(data, []byte("hello"))] = 'j'
	assert.Equal(t, "hello", events[0].Data.(harness.AssistantChunk).Chunk.Text)
}

// Nothing decodes to no events, and a last line without its newline is read like the others.
func TestDecodeEdges(t *testing.T) {
	events, err := Decode(nil)
	require.NoError(t, err)
	assert.Empty(t, events)
	events, err = Decode([]byte(`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1}}`))
	require.NoError(t, err)
	assert.Equal(t, []harness.Event{{Seq: 1, Type: harness.TypeTurnStart, Data: harness.TurnStart{Turn: 1}}}, events)
}

// An event Marshal refuses (a NaN delay) is refused with Marshal's error, naming the event.
func TestAppendRefusesWhatMarshalRefuses(t *testing.T) {
	nan := harness.LlmRetry{RetryID: "r", Turn: 1, Step: 1, DelayMs: nanMs()}
	_, err := Append(nil, []harness.Event{{Seq: 4, Type: nan.EventType(), Data: nan}})
	require.ErrorContains(t, err, "eventjson: encode event 4 (llm/retry): json: unsupported value: NaN")
}

func nanMs() float64 {
	zero := 0.0
	return zero / zero
}
