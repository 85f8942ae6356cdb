package cli

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/internal/jsonlimit"
)

// Rules check adds to the invariant layer's: what the harness's writer never produces, though a
// JSON decoder would take it silently (it reads CR LF as whitespace and turns invalid UTF-8 into
// U+FFFD), so a log that has it was written or edited by something else.
const (
	ruleUTF8       = "utf8"        // every line is valid UTF-8
	ruleLineEnding = "line-ending" // lines end in LF alone
	ruleTimeOrder  = "time-order"  // an event's time is never before the previous event's
	// ruleDuplicateKey: a line names no key twice in one object (a decoder keeps the last, so the
	// log would say two things and be read as one).
	ruleDuplicateKey = "duplicate-key"
	// ruleMessageID: no two user/message events share a message id (the inbox is rebuilt from
	// the log by message id: a second message under one id would be lost in it).
	ruleMessageID = "message-id"
)

// duplicateKeys finds a key given twice in one object of a line; the depth bound is the reader's
// own concern, not this rule's.
var duplicateKeys = jsonlimit.Limits{Depth: 1 << 20, DuplicateKeys: true}

// lineBytesMax is harness.LineBytesMax; a variable so that a test can lower it instead of writing
// 64 MiB.
var lineBytesMax = harnessLineBytesMax

const harnessLineBytesMax = harness.LineBytesMax

// formatViolations checks the bytes of the complete lines, and the events' times, against what
// the harness writes.
func formatViolations(complete []byte, events []harness.Event) []lineViolation {
	var found []lineViolation
	firstCRLF, crlfLines := 0, 0
	for line := 1; len(complete) > 0; line++ {
		end := bytes.IndexByte(complete, '\n') // complete lines only: end ≥ 0
		text := complete[:end]
		complete = complete[end+1:]
		if !utf8.Valid(text) {
			found = append(found, lineViolation{line, ruleUTF8, fmt.Sprintf("not valid UTF-8 at byte %d of the line (the harness writes UTF-8 only)", firstInvalidUTF8(text))})
		}
		var limit *jsonlimit.Error
		if err := jsonlimit.CheckBytes(text, duplicateKeys); errors.As(err, &limit) && limit.Limit {
			found = append(found, lineViolation{line, ruleDuplicateKey, limit.Reason + " (the harness writes each key once; a reader keeps the last)"})
		}
		if bytes.HasSuffix(text, []byte{'\r'}) {
			crlfLines++
			firstCRLF = cmp.Or(firstCRLF, line)
		}
	}
	if crlfLines > 0 { // once per file: a file converted to CR LF has it on every line
		found = append(found, lineViolation{firstCRLF, ruleLineEnding, fmt.Sprintf("%d line(s) end in CR LF, this one first (the harness ends lines in LF alone)", crlfLines)})
	}
	firstUse := map[string]int{}
	for i, e := range events {
		m, ok := e.Data.(harness.UserMessage)
		if !ok {
			continue
		}
		if first, seen := firstUse[m.Message.ID]; seen {
			found = append(found, lineViolation{i + 1, ruleMessageID, fmt.Sprintf("user/message: message id %q was already used on line %d (the inbox is rebuilt by message id)", m.Message.ID, first)})
			continue
		}
		firstUse[m.Message.ID] = i + 1
	}
	for i := 1; i < len(events); i++ {
		if events[i].Time < events[i-1].Time {
			found = append(found, lineViolation{i + 1, ruleTimeOrder, fmt.Sprintf("%s: time %d is before the previous event's %d (the harness's clock never goes back)", events[i].Type, events[i].Time, events[i-1].Time)})
		}
	}
	return found
}

// firstInvalidUTF8 is the offset of the first byte of text that does not start valid UTF-8.
func firstInvalidUTF8(text []byte) int {
	for at := 0; at < len(text); {
		r, size := utf8.DecodeRune(text[at:])
		if r == utf8.RuneError && size == 1 {
			return at
		}
		at += size
	}
	return len(text)
}
