package eventjson

import (
	"encoding/json"
	"testing"

	"github.com/turnsim/turnsim/harness"
)

// The codec's benchmarks: one op encodes (or decodes) a log of the 21 events of codecEvents,
// twice over (plain strings, then a tool call's JSON arguments wherever a string goes), with the
// codec and with encoding/json, side by side.

func benchLog(b *testing.B) ([]harness.Event, []byte) {
	events := append(codecEvents("a plain string of some words", 3, 512), codecEvents(`{"path":"a/b.txt","n":1}`, 1234, 0.5)...)
	log, err := Append(nil, events)
	if err != nil {
		b.Fatal(err)
	}
	return events, log
}

func BenchmarkEncode(b *testing.B) {
	events, log := benchLog(b)
	b.Run("eventjson", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(log)))
		var buf []byte
		for b.Loop() {
			buf, _ = Append(buf[:0], events)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(log)))
		for b.Loop() {
			for _, e := range events {
				if _, err := json.Marshal(e); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	_, log := benchLog(b)
	b.Run("eventjson", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(log)))
		for b.Loop() {
			if _, err := Decode(log); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(log)))
		for b.Loop() {
			if _, err := readLines(log); err != nil {
				b.Fatal(err)
			}
		}
	})
}
