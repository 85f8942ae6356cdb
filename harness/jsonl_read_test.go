package harness_test

import (
	"bytes"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/turnsim/turnsim/harness"
)

// DecodeJSONL answers as ReadJSONL does, whatever the bytes: a log the harness wrote, one with
// a line only encoding/json reads, a torn last line, a blank line, carriage returns, garbage.
func FuzzDecodeJSONLIsReadJSONL(f *testing.F) {
	var log bytes.Buffer
	if err := harness.WriteJSONL(&log, everyEventType()); err != nil {
		f.Fatal(err)
	}
	whole := log.Bytes()
	f.Add(bytes.Clone(whole))
	f.Add(append(bytes.Clone(whole), `{"seq":99,"type":"turn/start"`...))
	f.Add(append(bytes.Clone(whole), "\n"...))
	f.Add(bytes.ReplaceAll(whole, []byte("\n"), []byte("\r\n")))
	f.Add([]byte(`{"type":"turn/start","seq":1,"time":0,"data":{"turn":1}}` + "\n")) // key order only encoding/json takes
	f.Add([]byte(`{"seq":1,"type":"turn/start","time":0,"data":{"turn":1}} ` + "\n" + "{oops\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := harness.ReadJSONL(bytes.NewReader(data))
		got, gotErr := harness.DecodeJSONL(data)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("DecodeJSONL: error %v, ReadJSONL: %v", gotErr, wantErr)
		}
		if wantErr == nil && !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("DecodeJSONL read %d events, ReadJSONL %d:\n%v\n%v", len(got), len(want), got, want)
		}
		shared, sharedErr := harness.DecodeJSONLShared(bytes.Clone(data))
		if fmt.Sprint(sharedErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(shared, got) {
			t.Fatalf("DecodeJSONLShared: %v, %v; DecodeJSONL: %v, %v", shared, sharedErr, got, gotErr)
		}
		// A decoder kept from the inputs before: what they left in its memory never shows.
		fuzzDecoder.Lock()
		defer fuzzDecoder.Unlock()
		reused, reusedErr := fuzzDecoder.d.DecodeShared(bytes.Clone(data))
		if fmt.Sprint(reusedErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(reused, shared) {
			t.Fatalf("JSONLDecoder.DecodeShared: %v, %v; DecodeJSONLShared: %v, %v", reused, reusedErr, shared, sharedErr)
		}
	})
}

// fuzzDecoder is one decoder for every input of FuzzDecodeJSONLIsReadJSONL, reused across them.
var fuzzDecoder struct {
	sync.Mutex
	d harness.JSONLDecoder
}

// DecodeJSONLShared's events point into the log it was given: no copy of the text is made, so
// a change to the bytes shows in the events (which is why the caller must own them).
func TestDecodeJSONLSharedSharesTheText(t *testing.T) {
	var log bytes.Buffer
	chunk := harness.AssistantChunk{Turn: 1, Step: 1, Chunk: harness.Chunk{Kind: harness.ChunkText, Text: "hello"}}
	if err := harness.WriteJSONL(&log, []harness.Event{{Seq: 1, Type: chunk.EventType(), Data: chunk}}); err != nil {
		t.Fatal(err)
	}
	data := log.Bytes()
	events, err := harness.DecodeJSONLShared(data)
	if err != nil || len(events) != 1 {
		t.Fatalf("decode: %v, %d events", err, len(events))
	}
	copied, err := harness.DecodeJSONL(data)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte("hello"))
	data[i] = 'j'
	if text := events[0].Data.(harness.AssistantChunk).Chunk.Text; text != "jello" {
		t.Fatalf("the shared event's text is %q: it was copied", text)
	}
	if text := copied[0].Data.(harness.AssistantChunk).Chunk.Text; text != "hello" {
		t.Fatalf("DecodeJSONL's event's text is %q: it shares the bytes", text)
	}
}
