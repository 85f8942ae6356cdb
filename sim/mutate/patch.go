package mutate

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
)

// FilePatch is one file's part of a unified diff: the path (relative to the module root, slash
// separated) and its hunks. Created is a file the patch adds (`--- /dev/null`); Deleted one it
// removes (`+++ /dev/null`).
type FilePatch struct {
	Path    string
	Created bool
	Deleted bool
	Hunks   []Hunk
}

// Hunk is one `@@ -old,n +new,m @@` block: the lines it expects (context and removed) at
// OldStart, and the lines it leaves there (context and added).
type Hunk struct {
	OldStart int // 1-based, as in the header
	Old      []string
	New      []string
}

// parseUnifiedDiff reads the file sections of a unified diff, as `git diff` or `diff -u` write
// them; everything before the first `--- ` line is the caller's (the mutant's header). Line
// counts in each hunk header must match its body: a hand-edited patch that lost a line is
// refused here rather than applied wrongly.
func parseUnifiedDiff(body string) ([]FilePatch, error) {
	var files []FilePatch
	lines := splitLines(body)
	for i := 0; i < len(lines); {
		line := lines[i]
		if !strings.HasPrefix(line, "--- ") {
			i++
			continue
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "+++ ") {
			return nil, fmt.Errorf("line %d: %q is not followed by a +++ line", i+1, line)
		}
		from, to := diffPath(line[4:]), diffPath(lines[i+1][4:])
		fp := FilePatch{Path: to, Created: from == "/dev/null", Deleted: to == "/dev/null"}
		if fp.Deleted {
			fp.Path = from
		}
		if fp.Path == "/dev/null" || fp.Path == "" {
			return nil, fmt.Errorf("line %d: a file section names no file", i+1)
		}
		i += 2
		for i < len(lines) && strings.HasPrefix(lines[i], "@@ ") {
			h, next, err := parseHunk(lines, i)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", fp.Path, err)
			}
			fp.Hunks = append(fp.Hunks, h)
			i = next
		}
		if len(fp.Hunks) == 0 {
			return nil, fmt.Errorf("%s: a file section with no hunk", fp.Path)
		}
		files = append(files, fp)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no file section (a `--- a/FILE` / `+++ b/FILE` pair with hunks)")
	}
	return files, nil
}

// parseHunk reads the hunk whose header is lines[at] and returns it with the index of the line
// after it.
func parseHunk(lines []string, at int) (Hunk, int, error) {
	oldStart, oldCount, newCount, err := parseHunkHeader(lines[at])
	if err != nil {
		return Hunk{}, 0, fmt.Errorf("line %d: %w", at+1, err)
	}
	h := Hunk{OldStart: oldStart}
	i := at + 1
	for len(h.Old) < oldCount || len(h.New) < newCount {
		if i >= len(lines) {
			return Hunk{}, 0, fmt.Errorf("line %d: the hunk ends early (expected %d old and %d new lines, got %d and %d)", at+1, oldCount, newCount, len(h.Old), len(h.New))
		}
		line := lines[i]
		i++
		if line == "" { // an editor dropped the space of an empty context line
			line = " "
		}
		switch line[0] {
		case ' ':
			h.Old = append(h.Old, line[1:])
			h.New = append(h.New, line[1:])
		case '-':
			h.Old = append(h.Old, line[1:])
		case '+':
			h.New = append(h.New, line[1:])
		case '\\': // "\ No newline at end of file": the files here always end in one
		default:
			return Hunk{}, 0, fmt.Errorf("line %d: %q is not a context, removed or added line", i, line)
		}
	}
	if len(h.Old) != oldCount || len(h.New) != newCount {
		return Hunk{}, 0, fmt.Errorf("line %d: the hunk's header says %d old and %d new lines, its body has %d and %d", at+1, oldCount, newCount, len(h.Old), len(h.New))
	}
	for i < len(lines) && strings.HasPrefix(lines[i], `\`) {
		i++
	}
	return h, i, nil
}

// parseHunkHeader reads "@@ -l,s +l,s @@ anything".
func parseHunkHeader(line string) (oldStart, oldCount, newCount int, err error) {
	fields := strings.Fields(line)
	if len(fields) < 4 || fields[3] != "@@" || !strings.HasPrefix(fields[1], "-") || !strings.HasPrefix(fields[2], "+") {
		return 0, 0, 0, fmt.Errorf("%q is not a hunk header (@@ -l,s +l,s @@)", line)
	}
	oldStart, oldCount, err = parseRange(fields[1][1:])
	if err != nil {
		return 0, 0, 0, fmt.Errorf("%q: %w", line, err)
	}
	_, newCount, err = parseRange(fields[2][1:])
	if err != nil {
		return 0, 0, 0, fmt.Errorf("%q: %w", line, err)
	}
	return oldStart, oldCount, newCount, nil
}

// parseRange reads "l,s" or "l" (a count of one).
func parseRange(s string) (start, count int, err error) {
	startText, countText, hasCount := strings.Cut(s, ",")
	if start, err = strconv.Atoi(startText); err != nil || start < 0 {
		return 0, 0, fmt.Errorf("bad line number %q", startText)
	}
	count = 1
	if hasCount {
		if count, err = strconv.Atoi(countText); err != nil || count < 0 {
			return 0, 0, fmt.Errorf("bad line count %q", countText)
		}
	}
	return start, count, nil
}

// diffPath is the path a ---/+++ line names, without git's a/ or b/ and without the timestamp
// diff -u appends after a tab.
func diffPath(s string) string {
	s, _, _ = strings.Cut(s, "\t")
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "a/") || strings.HasPrefix(s, "b/") {
		s = s[2:]
	}
	return s
}

// splitLines splits text into lines without their line ends ("\r\n" as well as "\n").
func splitLines(text string) []string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		lines = append(lines, strings.TrimSuffix(sc.Text(), "\r"))
	}
	return lines
}

// apply returns content with the hunks applied. Each hunk must find its old lines exactly; it is
// looked for first where its header says (shifted by what earlier hunks added or removed), then
// ever further away, so that a mutant survives unrelated edits above it, but never by fuzzing
// its context: a mutant whose context changed no longer applies and says so.
func apply(content string, hunks []Hunk) (string, error) {
	lines := strings.Split(content, "\n")
	trailingNewline := len(lines) > 0 && lines[len(lines)-1] == ""
	if trailingNewline {
		lines = lines[:len(lines)-1]
	}
	shift, floor := 0, 0
	for n, h := range hunks {
		want := h.OldStart - 1 + shift
		if len(h.Old) == 0 {
			want = h.OldStart + shift // a pure addition goes after line OldStart
		}
		at := find(lines, h.Old, want, floor)
		if at < 0 {
			return "", fmt.Errorf("hunk %d (@@ -%d): its lines are not in the file any more (first: %q)", n+1, h.OldStart, firstLine(h.Old))
		}
		merged := make([]string, 0, len(lines)-len(h.Old)+len(h.New))
		merged = append(merged, lines[:at]...)
		merged = append(merged, h.New...)
		merged = append(merged, lines[at+len(h.Old):]...)
		lines = merged
		shift += at - want + len(h.New) - len(h.Old)
		floor = at + len(h.New)
	}
	out := strings.Join(lines, "\n")
	if trailingNewline {
		out += "\n"
	}
	return out, nil
}

// find is the index nearest want (and not before floor, where the previous hunk ended) at which
// lines holds old, or -1.
func find(lines, old []string, want, floor int) int {
	for d := 0; d <= len(lines); d++ {
		for _, at := range []int{want - d, want + d} {
			if at >= floor && at+len(old) <= len(lines) && equalAt(lines, old, at) {
				return at
			}
			if d == 0 {
				break
			}
		}
	}
	return -1
}

func equalAt(lines, old []string, at int) bool {
	for i, l := range old {
		if lines[at+i] != l {
			return false
		}
	}
	return true
}

func firstLine(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return lines[0]
}
