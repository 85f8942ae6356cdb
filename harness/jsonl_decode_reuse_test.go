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
// events' slice, their payloads, what the payloads point at and the strings with escapes are its
// own, kept from the log before. (A string of non-ASCII text with escapes, which is rare, is
// still a new allocation.)
func TestJSONLDecoderReusesItsMemory(t *testing.T) {
	var events []harness.Event
	for _, e := range everyEventType() {
		line := encodeJSONL(t, []harness.Event{e})
		if bytes.Contains(line, []byte(`\`)) && bytes.ContainsFunc(line, func(r rune) bool { return r >= 0x80 }) {
			continue // non-ASCII text with escapes
		}
		events = append(events, e)
	}
	if len(events) < len(everyEventType())-2 {
		t.Fatalf("only %d events of %d left to decode", len(events), len(everyEventType()))
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
