package main

import (
	"bytes"
	"cmp"
	"fmt"
	"unicode/utf8"

	"github.com/turnsim/turnsim/harness"
)

// Rules check adds to the invariant layer's: what the harness's writer never produces, though a
// JSON decoder would take it silently (it reads CR LF as whitespace and turns invalid UTF-8 into
// U+FFFD), so a log that has it was written or edited by something else.
const (
	ruleUTF8       = "utf8"        // every line is valid UTF-8
	ruleLineEnding = "line-ending" // lines end in LF alone
	ruleTimeOrder  = "time-order"  // an event's time is never before the previous event's
)

// lineBytesMax is harness.LineBytesMax; a variable so that a test can lower it instead of writing
// 64 MiB.
var lineBytesMax = harnessLineBytesMax

const harnessLineBytesMax = harness.LineBytesMax

// longLine finds the first line (newline included) longer than harness.LineBytesMax, which no
// reader of session logs takes: 0 when there is none.
func longLine(data []byte) (line, size int) {
	for line = 1; len(data) > 0; line++ {
		end := bytes.IndexByte(data, '\n')
		if end < 0 {
			end = len(data) - 1 // a torn last line: its length so far
		}
		if end+1 > lineBytesMax {
			return line, end + 1
		}
		data = data[end+1:]
	}
	return 0, 0
}

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
		if bytes.HasSuffix(text, []byte{'\r'}) {
			crlfLines++
			firstCRLF = cmp.Or(firstCRLF, line)
		}
	}
	if crlfLines > 0 { // once per file: a file converted to CR LF has it on every line
		found = append(found, lineViolation{firstCRLF, ruleLineEnding, fmt.Sprintf("%d line(s) end in CR LF, this one first (the harness ends lines in LF alone)", crlfLines)})
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
