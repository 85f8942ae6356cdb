package filestore_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/eventjson"
	"github.com/turnsim/turnsim/harness/filestore"
)

// turnsMax bounds the turns a fuzzed log holds, so one input stays quick.
const turnsMax = 12

// fuzzedTurn is a valid turn shaped by one byte: bit 0 adds a retry, bit 1 a tool call (with the
// text as its result), bit 2 ends it interrupted instead of completed; text is the user's message.
func fuzzedTurn(turn int, shape byte, text string) []harness.EventData {
	id := fmt.Sprintf("m%d", turn)
	data := []harness.EventData{
		harness.UserMessage{Message: harness.Message{ID: id, Text: text}},
		harness.TurnStart{Turn: turn},
		harness.StepStart{Turn: turn, Step: 1},
	}
	if shape&1 != 0 {
		maxRetries := 3
		retryID := fmt.Sprintf("r%d", turn)
		data = append(data,
			harness.LlmRetry{RetryID: retryID, Turn: turn, Step: 1, Provider: "p", Mode: harness.ModeNormal, PolicyKey: "k", Retry: 1, MaxRetries: &maxRetries, DelayMs: 250, Failure: harness.Failure{Code: harness.CodeServer, Message: "unavailable: " + text, Status: 503}},
			harness.LlmRetryStarted{RetryID: retryID, Turn: turn, Step: 1, Retry: 1})
	}
	if shape&2 != 0 {
		callID := fmt.Sprintf("c%d", turn)
		data = append(data,
			harness.AssistantMessage{Turn: turn, Step: 1, Message: harness.AssembledMessage{Blocks: []harness.Block{{Type: harness.BlockToolCall, CallID: callID, Name: "ls", Arguments: "{}"}}}, Finish: harness.FinishToolCalls},
			harness.ToolCall{Turn: turn, Step: 1, CallID: callID, Name: "ls", Arguments: "{}"},
			harness.ToolResult{Turn: turn, Step: 1, CallID: callID, Content: text})
	} else {
		data = append(data, harness.AssistantMessage{Turn: turn, Step: 1, Message: harness.AssembledMessage{Blocks: []harness.Block{{Type: harness.BlockText, Text: text}}}, Finish: harness.FinishCompleted})
	}
	end := harness.TurnEndReason{Kind: harness.EndCompleted}
	if shape&4 != 0 {
		end = harness.TurnEndReason{Kind: harness.EndInterrupted}
	}
	return append(data, harness.StepEnd{Turn: turn, Step: 1}, harness.TurnEnd{Turn: turn, Reason: end})
}

// fuzzedLog builds the events of one turn per byte of shapes (at most turnsMax) through a
// session, so each is valid, and the line of one more event after them.
func fuzzedLog(shapes []byte, text string) ([]harness.Event, []byte, error) {
	clock := &fakeClock{now: time.UnixMilli(1_700_000_000_000)}
	session := harness.NewSession(clock, nil)
	for i, shape := range shapes[:min(len(shapes), turnsMax)] {
		for _, d := range fuzzedTurn(i+1, shape, text) {
			clock.now = clock.now.Add(time.Duration(shape) * time.Millisecond)
			if _, err := session.Append(d); err != nil {
				return nil, nil, err
			}
		}
	}
	events := session.Events()
	next := harness.Event{Seq: int64(len(events)) + 1, Type: harness.TypeTurnStart, Time: clock.now.UnixMilli(), Data: harness.TurnStart{Turn: len(events) + 1}}
	line, err := eventjson.Append(nil, []harness.Event{next})
	return events, bytes.TrimSuffix(line, []byte("\n")), err
}

// Whatever valid events a log holds, and whatever prefix of a further line (without its newline)
// a crash left after them, Open yields exactly the events, reports the torn prefix, and leaves
// the file holding exactly their lines; a second Open finds nothing torn. The file is in memory
// (memFS), so the fuzzer runs the store's real code thousands of times a second; the unit tests
// cover the same cut on real files.
func FuzzOpenCutsExactlyTheTornTail(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 7}, "hi", uint16(20))
	f.Add([]byte{}, "", uint16(1))
	f.Add([]byte{5}, "line one\nline two \"quoted\" é ✓", uint16(0))
	f.Add([]byte{2, 2}, strings.Repeat("x", 200), uint16(65535))
	f.Fuzz(func(t *testing.T, shapes []byte, text string, tornBytes uint16) {
		text = strings.ToValidUTF8(text, "?") // JSON would replace invalid bytes: not a round trip
		events, next, err := fuzzedLog(shapes, text)
		if err != nil {
			t.Fatalf("the generator made an invalid log: %v", err)
		}
		var complete bytes.Buffer
		if err := eventjson.Write(&complete, events); err != nil {
			t.Fatal(err)
		}
		torn := next[:int(tornBytes)%(len(next)+1)] // any prefix of the next line, newline excluded
		fsys := newMemFS()
		const path = "session.jsonl"
		fsys.files[path] = &memFile{data: append(bytes.Clone(complete.Bytes()), torn...)}

		s, opened, err := filestore.OpenFS(fsys, path)
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		defer s.Close()
		if len(opened.Events) != len(events) {
			t.Fatalf("open read %d events, the log holds %d", len(opened.Events), len(events))
		}
		var reread bytes.Buffer
		if err := eventjson.Write(&reread, opened.Events); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(reread.Bytes(), complete.Bytes()) {
			t.Fatalf("the %d events read back encode differently (%d bytes ending %q, want %d ending %q)", len(opened.Events), reread.Len(), tail(reread.Bytes()), complete.Len(), tail(complete.Bytes()))
		}
		switch {
		case len(torn) == 0 && opened.Torn != nil:
			t.Fatalf("nothing was torn, but Open reports %+v", *opened.Torn)
		case len(torn) > 0 && (opened.Torn == nil || opened.Torn.Bytes != len(torn) || opened.Torn.Line != len(events)+1):
			t.Fatalf("a torn line of %d bytes on line %d, but Open reports %+v", len(torn), len(events)+1, opened.Torn)
		}
		if got := fsys.files[path].data; !bytes.Equal(got, complete.Bytes()) {
			t.Fatalf("the file holds %d bytes ending %q, want exactly the %d bytes of the complete lines, ending %q", len(got), tail(got), complete.Len(), tail(complete.Bytes()))
		}
		if s.Size() != int64(complete.Len()) {
			t.Fatalf("Size %d, want %d", s.Size(), complete.Len())
		}
		s.Close()
		again, reopened, err := filestore.OpenFS(fsys, path)
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		defer again.Close()
		if reopened.Torn != nil || len(reopened.Events) != len(events) {
			t.Fatalf("reopening after the cut: %d events, torn %+v", len(reopened.Events), reopened.Torn)
		}
	})
}

// tail is the end of a log, enough to see how it ends in a failure message.
func tail(b []byte) []byte { return b[max(len(b)-60, 0):] }
