package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/filestore"
)

// FuzzCheck: whatever a session log holds, `simrun check` does not panic, exits 0, 1 or 2, and
// says why: 2 only with a message on stderr naming the file, 1 only with at least one violation
// line on stdout, and every stdout line is a violation or the file's summary. It never changes
// the file. And its replay (which goes on past a refusal) agrees with the invariant layer: it
// reports no invariant violation exactly when harness.ValidateLog accepts the log.
func FuzzCheck(f *testing.F) {
	paths, err := filepath.Glob(filepath.Join(checkTestdata, "*", "*.jsonl"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no seed logs in %s: %v", checkTestdata, err)
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)*2/3]) // torn
	}
	for _, seed := range []string{"", "\n", "{}\n", "{\"seq\":1,\"type\":\"turn/start\",\"time\":0,\"data\":{\"turn\":1}}\r\n"} {
		f.Add([]byte(seed))
	}
	// One file, rewritten for every input: a fuzz worker runs one input at a time, and a fresh
	// directory per input would make the engine's minimisation of a new input crawl.
	path := filepath.Join(f.TempDir(), "session.jsonl")
	// FILE:LINE: RULE: message, or FILE: RULE: message for a property that blames no single event.
	violation := regexp.MustCompile(`^` + regexp.QuoteMeta(path) + `(:[1-9][0-9]*)?: ([a-z0-9-]+): .`)
	summary := regexp.MustCompile(`^` + regexp.QuoteMeta(path) + `: \d+ events?, (ok|\d+ violations?)(; needs crash repair: turn \d+ is open .*)?( \(properties not checked: .*\))?$`)

	f.Fuzz(func(t *testing.T, input []byte) {
		require.NoError(t, os.WriteFile(path, input, 0o644))
		code, out, errOut := simrun("check", path)

		after, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, input, after, "check never writes")

		var lines []string
		if out != "" {
			lines = strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		}
		var rules []string
		for _, line := range lines {
			if m := violation.FindStringSubmatch(line); m != nil && !summary.MatchString(line) {
				rules = append(rules, m[2])
				continue
			}
			require.Regexp(t, summary, line, "stdout holds violations and the summary, nothing else")
		}

		switch code {
		case exitOK:
			require.Empty(t, rules, out)
			require.Len(t, lines, 1)
			require.True(t, strings.HasSuffix(lines[0], ", ok") || strings.Contains(lines[0], ", ok; needs crash repair: "), out)
		case exitViolation:
			require.NotEmpty(t, rules, "exit 1 names at least one violation: %q", out)
			require.Len(t, lines, len(rules)+1, "and then the summary")
		case exitUsage:
			require.Contains(t, errOut, path+": unreadable: ", "exit 2 says which file")
			require.Empty(t, out)
			return
		default:
			t.Fatalf("exit code %d", code)
		}

		events, torn, err := filestore.Scan(path, input)
		require.NoError(t, err, "a file check read is one the store's reader reads")
		if torn != nil {
			require.Contains(t, errOut, "torn last line")
		} else {
			require.Empty(t, errOut)
		}
		// The layer refused something exactly when the properties were skipped.
		refused := strings.Contains(lines[len(lines)-1], "(properties not checked: ")
		valid := harness.ValidateLog(events) == nil
		assert.Equal(t, valid, !refused, "check's replay agrees with the invariant layer: %s", out)
	})
}
