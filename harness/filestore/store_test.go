package filestore_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/eventjson"
	"github.com/turnsim/turnsim/harness/filestore"
)

// fakeClock is a harness.Clock that moves only when told to.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

// aTurn is a short, valid turn: a user message, one step with a retry and a tool call, settled.
func aTurn(turn int) []harness.EventData {
	maxRetries := 2
	retryID := fmt.Sprintf("r%d", turn)
	return []harness.EventData{
		harness.UserMessage{Message: harness.Message{ID: fmt.Sprintf("m%d", turn), Text: "hi"}},
		harness.TurnStart{Turn: turn},
		harness.StepStart{Turn: turn, Step: 1},
		harness.LlmRetry{RetryID: retryID, Turn: turn, Step: 1, Provider: "p", Mode: harness.ModeNormal, PolicyKey: "k", Retry: 1, MaxRetries: &maxRetries, DelayMs: 500, Failure: harness.Failure{Code: harness.CodeRateLimit, Message: "429", Status: 429}},
		harness.LlmRetryStarted{RetryID: retryID, Turn: turn, Step: 1, Retry: 1},
		harness.AssistantMessage{Turn: turn, Step: 1, Message: harness.AssembledMessage{Blocks: []harness.Block{{Type: harness.BlockToolCall, CallID: "c1", Name: "ls", Arguments: "{}"}}}, Finish: harness.FinishToolCalls},
		harness.ToolCall{Turn: turn, Step: 1, CallID: "c1", Name: "ls", Arguments: "{}"},
		harness.ToolResult{Turn: turn, Step: 1, CallID: "c1", Content: "a\nb"},
		harness.StepEnd{Turn: turn, Step: 1},
		harness.TurnEnd{Turn: turn, Reason: harness.TurnEndReason{Kind: harness.EndCompleted}},
	}
}

// writeThroughSession appends data through a harness.Session whose store is s, the way the agent
// does, and returns what the session holds.
func writeThroughSession(t *testing.T, s *filestore.Store, data []harness.EventData) []harness.Event {
	t.Helper()
	clock := &fakeClock{now: time.UnixMilli(1_700_000_000_000)}
	session := harness.NewSession(clock, s)
	for _, d := range data {
		clock.now = clock.now.Add(250 * time.Millisecond)
		_, err := session.Append(d)
		require.NoError(t, err)
	}
	return session.Events()
}

func open(t *testing.T, path string) (*filestore.Store, filestore.Opened) {
	t.Helper()
	s, opened, err := filestore.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s, opened
}

func TestOpenAbsentOrEmptyLogHasNoEvents(t *testing.T) {
	dir := t.TempDir()
	absent := filepath.Join(dir, "new.jsonl")
	s, opened := open(t, absent)
	assert.Empty(t, opened.Events)
	assert.Nil(t, opened.Torn)
	assert.Equal(t, int64(0), s.Size())
	info, err := os.Stat(absent)
	require.NoError(t, err, "Open creates the file")
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm()&^umask(t))

	empty := filepath.Join(dir, "empty.jsonl")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	_, opened = open(t, empty)
	assert.Empty(t, opened.Events)
}

// umask returns the bits the process's umask clears, read off a file created with 0777.
func umask(t *testing.T) os.FileMode {
	path := filepath.Join(t.TempDir(), "probe")
	require.NoError(t, os.WriteFile(path, nil, 0o777))
	info, err := os.Stat(path)
	require.NoError(t, err)
	return 0o777 &^ info.Mode().Perm()
}

func TestAppendsSurviveCloseAndReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.jsonl")
	s, _ := open(t, path)
	appended := writeThroughSession(t, s, aTurn(1))
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "closing twice is fine")

	var want bytes.Buffer
	require.NoError(t, eventjson.Write(&want, appended))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, want.String(), string(got), "the file holds exactly the harness's JSON Lines")

	s2, opened := open(t, path)
	assert.Equal(t, appended, opened.Events)
	assert.Nil(t, opened.Torn)
	assert.Equal(t, int64(len(got)), s2.Size())

	// A session that carries on after the reopened log keeps it valid on disk.
	clock := &fakeClock{now: time.UnixMilli(1_700_000_100_000)}
	for i, d := range aTurn(2)[1:] {
		e := harness.Event{Seq: int64(len(appended) + i + 1), Type: d.EventType(), Time: clock.now.UnixMilli(), Data: d}
		require.NoError(t, s2.Append(e))
	}
	require.NoError(t, s2.Close())
	_, opened = open(t, path)
	assert.Len(t, opened.Events, len(appended)+len(aTurn(2))-1)
}

func TestAppendAfterCloseFails(t *testing.T) {
	s, _ := open(t, filepath.Join(t.TempDir(), "session.jsonl"))
	require.NoError(t, s.Close())
	err := s.Append(harness.Event{Seq: 1, Type: harness.TypeTurnStart, Data: harness.TurnStart{Turn: 1}})
	assert.ErrorIs(t, err, filestore.ErrClosed)
}

func TestAppendRefusesWhatWouldMakeTheFileUnreadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.jsonl")
	s, _ := open(t, path)
	writeThroughSession(t, s, aTurn(1))
	before := readFile(t, path)

	// A second session over the same store starts again at seq 1: the store refuses it.
	session := harness.NewSession(&fakeClock{}, s)
	_, err := session.Append(harness.TurnStart{Turn: 1})
	var invariant *harness.InvariantError
	require.ErrorAs(t, err, &invariant)
	assert.Equal(t, harness.RuleSeq, invariant.Rule)
	assert.Equal(t, before, readFile(t, path), "nothing written")

	// The store is not broken by a refusal: the right next event is taken.
	require.NoError(t, s.Append(harness.Event{Seq: 11, Type: harness.TypeTurnStart, Data: harness.TurnStart{Turn: 2}}))
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// validLog is aTurn(1) as the harness writes it.
func validLog(t *testing.T) string {
	t.Helper()
	s, _ := open(t, filepath.Join(t.TempDir(), "valid.jsonl"))
	events := writeThroughSession(t, s, aTurn(1))
	var buf bytes.Buffer
	require.NoError(t, eventjson.Write(&buf, events))
	return buf.String()
}

func TestTornLastLineIsCutAndReported(t *testing.T) {
	log := validLog(t)
	lines := strings.SplitAfter(log, "\n")
	lastComplete := strings.TrimSuffix(lines[9], "\n") // turn/end, valid JSON without its newline
	cases := map[string]string{
		"valid JSON without its newline": lastComplete,
		"half a line":                    lastComplete[:len(lastComplete)/2],
		"one byte":                       "{",
	}
	for name, torn := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "session.jsonl")
			kept := strings.Join(lines[:9], "")
			require.NoError(t, os.WriteFile(path, []byte(kept+torn), 0o644))

			s, opened := open(t, path)
			require.NotNil(t, opened.Torn)
			assert.Equal(t, 10, opened.Torn.Line)
			assert.Equal(t, len(torn), opened.Torn.Bytes)
			assert.Equal(t, torn[:min(len(torn), 80)], opened.Torn.Text)
			assert.Len(t, opened.Events, 9)
			assert.Equal(t, kept, readFile(t, path), "the torn line is cut; the file ends with a newline")
			assert.Equal(t, int64(len(kept)), s.Size())

			// The store appends after the cut, and a reopen finds a clean log.
			require.NoError(t, s.Append(harness.Event{Seq: 10, Type: harness.TypeTurnEnd, Data: harness.TurnEnd{Turn: 1, Reason: harness.TurnEndReason{Kind: harness.EndInterrupted}}}))
			require.NoError(t, s.Close())
			_, opened = open(t, path)
			assert.Nil(t, opened.Torn)
			assert.Len(t, opened.Events, 10)
		})
	}
}

func TestTornTextKeepsAtMost80BytesWithoutSplittingARune(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.jsonl")
	start := `{"seq":1,"type":"` + strings.Repeat("a", 79-17) // 79 bytes: the 80th starts "é"
	torn := start + "é and more"
	require.NoError(t, os.WriteFile(path, []byte(torn), 0o644))
	_, opened := open(t, path)
	require.NotNil(t, opened.Torn)
	assert.Equal(t, 1, opened.Torn.Line)
	assert.Equal(t, start, opened.Torn.Text)
	assert.Equal(t, "", readFile(t, path))
}

func TestMalformedLogIsAnErrorAndLeftUntouched(t *testing.T) {
	lines := strings.SplitAfter(validLog(t), "\n")[:10]
	with := func(line int, text string) string { // replace line (1-based)
		out := append([]string(nil), lines...)
		out[line-1] = text
		return strings.Join(out, "")
	}
	cases := []struct {
		name    string
		content string
		line    int
		says    string
	}{
		{"a middle line that is not JSON", with(4, "{\"seq\":4,\"type\":\n"), 4, "unexpected end of JSON input"},
		{"a blank line", with(3, "\n"), 3, "blank line"},
		{"a line of spaces", with(3, "   \n"), 3, "blank line"},
		{"an unknown event type", with(2, `{"seq":2,"type":"turn/pause","time":0,"data":{"turn":1}}`+"\n"), 2, `unknown event type "turn/pause"`},
		{"an unknown field", with(2, `{"seq":2,"type":"turn/start","time":0,"data":{"turn":1,"why":1}}`+"\n"), 2, `unknown field "why"`},
		{"a seq gap", with(5, strings.Replace(lines[4], `"seq":5`, `"seq":6`, 1)), 5, "invariant seq: event 6 (llm/retry-started): seq 6 does not follow 4"},
		{"a result with no call", with(7, strings.Replace(lines[7], `"seq":8`, `"seq":7`, 1)), 7, "invariant tool-pairing"},
		{"a bad line before a torn one", with(4, "oops\n") + `{"seq":11`, 4, "invalid character"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "session.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(c.content), 0o600))
			before, err := os.Stat(path)
			require.NoError(t, err)

			s, _, err := filestore.Open(path)
			require.Error(t, err)
			assert.Nil(t, s)
			var format *filestore.FormatError
			require.ErrorAs(t, err, &format)
			assert.Equal(t, path, format.Path)
			assert.Equal(t, c.line, format.Line)
			assert.Contains(t, format.Reason, c.says)
			assert.True(t, strings.HasPrefix(err.Error(), "filestore: "+path+":"), err.Error())

			assert.Equal(t, c.content, readFile(t, path), "the file is left byte-for-byte untouched")
			after, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, before.ModTime(), after.ModTime())
			assert.Equal(t, before.Mode(), after.Mode())

			_, _, err = filestore.Open(path)
			require.Error(t, err, "and the lock was released: the same error again, not ErrLocked")
			assert.NotErrorIs(t, err, filestore.ErrLocked)
		})
	}
}

func TestInvariantRefusalUnwrapsToTheRule(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`{"seq":1,"type":"turn/end","time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}`+"\n"), 0o644))
	_, _, err := filestore.Open(path)
	var invariant *harness.InvariantError
	require.ErrorAs(t, err, &invariant)
	assert.Equal(t, harness.RuleTurn, invariant.Rule)
	assert.Equal(t, "filestore: "+path+":1: invariant turn: event 1 (turn/end): turn/end for turn 1, but the open turn is none", err.Error())
}

func TestASecondWriterIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.jsonl")
	first, _ := open(t, path)

	second, _, err := filestore.Open(path)
	assert.Nil(t, second)
	require.ErrorIs(t, err, filestore.ErrLocked)
	assert.Equal(t, "filestore: session log "+path+" is locked by another writer", err.Error())

	// Through another name for the same file, too.
	link := filepath.Join(t.TempDir(), "link.jsonl")
	require.NoError(t, os.Symlink(path, link))
	_, _, err = filestore.Open(link)
	require.ErrorIs(t, err, filestore.ErrLocked)

	require.NoError(t, first.Close())
	third, _ := open(t, path)
	require.NoError(t, third.Close(), "after Close the lock is free")
}

func TestOpenReportsIOErrors(t *testing.T) {
	dir := t.TempDir()
	_, _, err := filestore.Open(dir)
	require.Error(t, err, "a directory is no session log")
	assert.Contains(t, err.Error(), "filestore: open session log")

	_, _, err = filestore.Open(filepath.Join(dir, "missing", "session.jsonl"))
	assert.True(t, errors.Is(err, os.ErrNotExist), "%v", err)
}

// TestASecondWriterInAnotherProcessIsRefused re-runs this test binary as the second writer.
func TestASecondWriterInAnotherProcessIsRefused(t *testing.T) {
	if path := os.Getenv("FILESTORE_SECOND_WRITER"); path != "" {
		s, _, err := filestore.Open(path)
		if err != nil {
			fmt.Print(err)
			os.Exit(3)
		}
		s.Close()
		os.Exit(0)
	}
	path := filepath.Join(t.TempDir(), "session.jsonl")
	second := func() (int, string) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestASecondWriterInAnotherProcessIsRefused$")
		cmd.Env = append(os.Environ(), "FILESTORE_SECOND_WRITER="+path)
		out, err := cmd.Output()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), string(out)
		}
		require.NoError(t, err)
		return 0, string(out)
	}

	first, _ := open(t, path)
	code, out := second()
	assert.Equal(t, 3, code)
	assert.Equal(t, "filestore: session log "+path+" is locked by another writer", out)

	require.NoError(t, first.Close())
	code, out = second()
	assert.Equal(t, 0, code, out)
}

// A last line without its newline is cut off as torn only when a write cut short could have left
// it: the start of an event's line. Anything else is a malformed log, refused and left as it is
// (before, a text file, a zip or a whole log with carriage returns for newlines opened as "torn",
// and `simrun check` called it ok).
func TestALastLineThatCannotBeTornIsAnError(t *testing.T) {
	log := validLog(t)
	kept := strings.Join(strings.SplitAfter(log, "\n")[:9], "")
	cases := map[string]struct{ text, says string }{
		"text":                     {"hello world", `starts with "hello wo", not {`},
		"binary":                   {"PK\x03\x04binary", `starts with "PK\x03\x04bina", not {`},
		"zeros":                    {strings.Repeat("\x00", 100), "not {"},
		"a whole object, no event": {`{"version":1,"seed":3}`, "a whole JSON object, but no event"},
		"carriage returns":         {strings.ReplaceAll(log, "\n", "\r"), "the control byte 0x0d"},
		"not UTF-8":                {`{"seq":10,"type":"` + "\xff\xfe" + `turn/end"`, "not UTF-8"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "session.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(kept+c.text), 0o644))
			_, _, err := filestore.Open(path)
			var bad *filestore.FormatError
			require.ErrorAs(t, err, &bad)
			assert.Equal(t, 10, bad.Line)
			assert.Contains(t, err.Error(), "not the start of an event line a write cut short")
			assert.Contains(t, err.Error(), c.says)
			assert.Equal(t, kept+c.text, readFile(t, path), "nothing is overwritten")
		})
	}
}
