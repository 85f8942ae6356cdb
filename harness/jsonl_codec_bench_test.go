package harness

import (
	"encoding/json"
	"testing"
)

// The codec benchmarks: one op encodes (or decodes) the 21 events of codecEvents, one of every
// type and shape, with the hand-written codec and with encoding/json, side by side.

func codecBenchEvents(b *testing.B) ([]Event, [][]byte) {
	events := codecEvents(`{"path":"a/b.txt"}`, 3, 512)
	lines := make([][]byte, len(events))
	for i, e := range events {
		line, err := EncodeEvent(e)
		if err != nil {
			b.Fatal(err)
		}
		lines[i] = line
	}
	return events, lines
}

func BenchmarkEncodeEvents(b *testing.B) {
	events, _ := codecBenchEvents(b)
	b.Run("hand-written", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf, _ = AppendJSONL(buf[:0], events)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, e := range events {
				if _, err := json.Marshal(e); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

func BenchmarkDecodeEvents(b *testing.B) {
	_, lines := codecBenchEvents(b)
	b.Run("hand-written", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, line := range lines {
				var e Event
				if err := e.UnmarshalJSON(line); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, line := range lines {
				var e Event
				if err := e.unmarshalStandard(line); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkDecodeJSONLShared decodes a log of the codec's 21 events twice over, once with plain
// strings and once with a tool call's JSON arguments (escaped quotes) wherever a string goes, as
// the log-replays property and a file store's reopen decode theirs.
func BenchmarkDecodeJSONLShared(b *testing.B) {
	events := append(codecEvents("a plain string of some words", 3, 512), codecEvents(`{"path":"a/b.txt","n":1}`, 1234, 0.5)...)
	log, err := AppendJSONL(nil, events)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(log)))
	for b.Loop() {
		if _, err := DecodeJSONLShared(log); err != nil {
			b.Fatal(err)
		}
	}
}
