package harness_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/turnsim/turnsim/harness"
)

// A JSONLDecoder answers as DecodeJSONLShared does, log after log, whatever the logs before left
// in its memory: a payload with an optional field set (a tool result's error, a retry's
// maxRetries, a turn end's cause) decoded into the slot of one without, and back; a longer log
// and then a shorter one.
func TestJSONLDecoderIsDecodeJSONLShared(t *testing.T) {
	every := encodeJSONL(t, everyEventType())
	var without []harness.Event // the same events with their optional fields left out
	for _, e := range everyEventType() {
		switch d := e.Data.(type) {
		case harness.ToolResult:
			d.Error = nil
			e.Data = d
		case harness.LlmRetry:
			d.MaxRetries = nil
			e.Data = d
		case harness.TurnEnd:
			d.Reason.Reason, d.Reason.Error = nil, nil
			e.Data = d
		}
		without = append(without, e)
	}
	logs := [][]byte{every, encodeJSONL(t, without), every, encodeJSONL(t, without[:3]), every}
	var d harness.JSONLDecoder
	for i, log := range logs {
		want, err := harness.DecodeJSONLShared(log)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.DecodeShared(log)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("log %d: the decoder read %v, %v; DecodeJSONLShared %v", i, got, err, want)
		}
	}
}

// Once it has grown to a log's size, a decoder decodes a log like it without allocating: the
// events' slice and their payloads are its own, kept from the log before. (Payloads that hold
// pointers or slices, a message's blocks, a turn end's cause, still allocate those, as does a
// string with escapes, whose value is not a substring of the log.)
func TestJSONLDecoderReusesItsMemory(t *testing.T) {
	var events []harness.Event
	for _, e := range everyEventType() {
		switch e.Data.(type) {
		case harness.ToolResult, harness.LlmRetry, harness.TurnEnd, harness.AssistantMessage:
			continue // pointers or slices
		}
		if bytes.Contains(encodeJSONL(t, []harness.Event{e}), []byte(`\`)) {
			continue // a string with escapes
		}
		events = append(events, e)
	}
	log := encodeJSONL(t, events)
	var d harness.JSONLDecoder
	if _, err := d.DecodeShared(log); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := d.DecodeShared(log); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("decoding a log of %d events again allocated %v times", len(events), allocs)
	}
	// Without the decoder, a payload is an allocation (but a small turn number's, which Go boxes
	// without one), besides the slice.
	if fresh := testing.AllocsPerRun(100, func() { _, _ = harness.DecodeJSONLShared(log) }); fresh < float64(len(events)/2) {
		t.Fatalf("DecodeJSONLShared allocated %v times for %d events: the test no longer measures the payloads", fresh, len(events))
	}
}

func encodeJSONL(t *testing.T, events []harness.Event) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := harness.WriteJSONL(&b, events); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
