package harness_test

import (
	"bytes"
	"fmt"
	"reflect"
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
	})
}
