package filestore_test

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/eventjson"
	"github.com/turnsim/turnsim/harness/filestore"
)

// ReopenFS after an Open of the first lines of a log reads exactly what OpenFS reads of the file
// as it is now, whatever happened to it since: more lines appended and a torn tail (only they are
// decoded), a cut into the lines read before (a power loss: all of it is decoded again), or a
// line that does not decode or breaks the invariant layer (the same error, on the same line).
// Both leave the file with the same bytes, and what the first open read stays as it was,
// whatever the file does after it (a cut torn tail written over by appends included).
func FuzzReopenReadsWhatOpenReads(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, "hi", uint8(5), uint8(0), uint16(7))
	f.Add([]byte{1, 2}, "x", uint8(3), uint8(1), uint16(0))
	f.Add([]byte{4, 4, 4}, "y", uint8(9), uint8(2), uint16(3))
	f.Add([]byte{3}, "z", uint8(0), uint8(3), uint16(1))
	f.Add([]byte{2, 7}, "w", uint8(4), uint8(4), uint16(2))
	f.Fuzz(func(t *testing.T, shapes []byte, text string, split uint8, change uint8, tornBytes uint16) {
		text = strings.ToValidUTF8(text, "?")
		events, next, err := fuzzedLog(shapes, text)
		if err != nil {
			t.Fatalf("the generator made an invalid log: %v", err)
		}
		var lines [][]byte
		for _, e := range events {
			line, err := eventjson.Append(nil, []harness.Event{e})
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, line)
		}
		k := int(split) % (len(lines) + 1)
		const path = "session.jsonl"
		fsys := newMemFS()
		fsys.files[path] = &memFile{data: bytes.Join(lines[:k], nil)}
		s, first, err := filestore.OpenFS(fsys, path)
		if err != nil {
			t.Fatalf("first open: %v", err)
		}
		s.Close()

		// What happened to the file since the first open.
		var now []byte
		switch change % 5 {
		case 0, 1: // it grew (the usual case), by nothing at all for some
			now = bytes.Join(lines, nil)
		case 2: // a power loss cut into what was read
			now = bytes.Join(lines[:k/2], nil)
		case 3: // a line that does not decode after what was read
			now = append(bytes.Join(lines, nil), "{not json\n"...)
		case 4: // a line the invariant layer refuses: the first one again
			now = bytes.Join(lines, nil)
			if len(lines) > 0 {
				now = append(now, lines[0]...)
			}
		}
		now = append(now, next[:int(tornBytes)%(len(next)+1)]...)

		fresh := newMemFS()
		fresh.files[path] = &memFile{data: bytes.Clone(now)}
		fsys.files[path].data = bytes.Clone(now)
		want, wantOpened, wantErr := filestore.OpenFS(fresh, path)
		got, gotOpened, gotErr := filestore.ReopenFS(fsys, path, first)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("reopen: error %v, open: %v", gotErr, wantErr)
		}
		if wantErr != nil {
			return
		}
		defer want.Close()
		defer got.Close()
		if !reflect.DeepEqual(gotOpened.Events, wantOpened.Events) || !reflect.DeepEqual(gotOpened.Torn, wantOpened.Torn) {
			t.Fatalf("reopen read %d events (torn %+v), open %d (torn %+v)", len(gotOpened.Events), gotOpened.Torn, len(wantOpened.Events), wantOpened.Torn)
		}
		if !bytes.Equal(fsys.files[path].data, fresh.files[path].data) || got.Size() != want.Size() {
			t.Fatalf("after reopen the file holds %d bytes (size %d), after open %d (size %d)", len(fsys.files[path].data), got.Size(), len(fresh.files[path].data), want.Size())
		}
		// The reopen's history, prev's extended by the new lines, holds what a fresh open read.
		if h := gotOpened.History(); (h == nil) != (len(wantOpened.Events) == 0) || h != nil && !reflect.DeepEqual(h.Events(), wantOpened.Events) {
			t.Fatalf("reopen's History is %v, open read %d events", h, len(wantOpened.Events))
		}
		// The reopened store validates from the state the reopen's history left (prev's extended by
		// the new lines only): it judges the next event, and the one after it, as the open's does.
		nextEvents, err := eventjson.Decode(next)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range []harness.Event{nextEvents[0], nextEvents[0]} {
			if gotErr, wantErr := got.Append(e), want.Append(e); fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("append of event %d to the reopened store: %v, to the opened one: %v", e.Seq, gotErr, wantErr)
			}
		}
		if !bytes.Equal(fsys.files[path].data, fresh.files[path].data) {
			t.Fatalf("after the appends the file holds %q, the opened one's %q", fsys.files[path].data, fresh.files[path].data)
		}
		if !reflect.DeepEqual(gotOpened.Events, wantOpened.Events) || !bytes.Equal(gotOpened.Content(), wantOpened.Content()) {
			t.Fatalf("the appends changed what the reopen read: %q, the open's %q", gotOpened.Content(), wantOpened.Content())
		}
	})
}
