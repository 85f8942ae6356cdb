package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/eventjson"
	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim"
)

const checkTestdata = "testdata/check"

// badLogLine is, for every log in testdata/check/bad, the line check must blame; the file is
// named after the one invariant rule or log-only property it breaks.
var badLogLine = map[string]int{
	// invariant rules
	harness.RuleSeq:          4, // seq 5 follows 3
	harness.RuleData:         8, // finish "done"
	harness.RuleTurn:         9, // turn/end while the step is open
	harness.RuleStep:         6, // step/start 2 while step 1 is open
	harness.RuleScope:        7, // a chunk naming step 2
	harness.RuleToolPairing:  6, // a second result for c1
	harness.RuleRetryFields:  3, // normal mode without maxRetries
	harness.RuleRetryChain:   5, // retry 2 under another retryId
	harness.RuleRetryStarted: 5, // the same retry started twice
	// log-only properties
	"max-tokens-sticky":       11,
	"max-tokens-commits-text": 3, // the tool-call block kept
	"tool-results-paired":     6, // the call without a result
	"results-in-model-order":  7, // c1's result after c2's
	"no-truncated-calls":      4,
	"retry-started-on-time":   4,
	"delay-in-window":         3,
	"retry-after-exact":       3,
	"no-double-dispatch":      9, // c1 dispatched again in step 2
	"chain-budget":            7, // the third retry of a chain whose policyKey allows two
}

// alsoBlamed names, for a bad log that cannot break its property alone, the other line and
// property check must blame too. A truncated call dispatched was asked for by a max-tokens answer
// that kept its tool-call block (without the block, no-double-dispatch would say no answer asked
// for it), and keeping the block is what max-tokens-commits-text forbids.
var alsoBlamed = map[string]reported{
	"no-truncated-calls": {3, "max-tokens-commits-text"},
}

// unreachableByCheck are log-only properties no file can break without check reporting something
// else first, each with the reason and the invariant rule whose bad log stands in for it.
var unreachableByCheck = map[string]struct{ why, rule string }{
	"turn-settled": {"the invariant layer lets a turn stay open only while it is the last one, and " +
		"check reports an open last turn as needing crash repair, not as a violation " +
		"(TestCheckSaysAnOpenLastTurnNeedsRepair); run strictly, the stand-in fires", "repair/open-last-turn"},
	"log-replays": {"check hands CheckLog the very bytes it decoded the events from, so they always " +
		"read back equal; a line that does not decode is unreadable input (exit 2), and a log that " +
		"fails the layer on replay was already reported by rule", harness.RuleSeq},
	"retry-id-continuity": {"the invariant layer's retry-chain rule refuses every log this property " +
		"flags (it exists for a planted bug that bypasses the layer), and properties run only on " +
		"logs the layer accepted", harness.RuleRetryChain},
}

// invariantRules reads the Rule* constants out of harness/invariants.go, so a new rule without a
// bad log here fails the test.
func invariantRules(t *testing.T) []string {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), "../../harness/invariants.go", nil, 0)
	require.NoError(t, err)
	var rules []string
	for _, decl := range file.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			value := spec.(*ast.ValueSpec)
			for i, name := range value.Names {
				if !strings.HasPrefix(name.Name, "Rule") || i >= len(value.Values) {
					continue
				}
				literal, ok := value.Values[i].(*ast.BasicLit)
				require.True(t, ok && literal.Kind == token.STRING, "%s is a string literal", name.Name)
				rule, err := strconv.Unquote(literal.Value)
				require.NoError(t, err)
				rules = append(rules, rule)
			}
		}
	}
	require.GreaterOrEqual(t, len(rules), 9, "the rules are where this test looks for them")
	return rules
}

// logOnlyProperties lists the properties CheckLog runs.
func logOnlyProperties() []string {
	var names []string
	for _, p := range properties.Catalogue() {
		if properties.LogOnly(p.Name) {
			names = append(names, p.Name)
		}
	}
	return names
}

// violationLine matches one violation line of check's output: FILE:LINE: RULE: message.
var violationLine = regexp.MustCompile(`^(.+):(\d+): ([a-z-]+): (.+)$`)

type reported struct {
	line int
	rule string
}

// violationsIn parses check's stdout into (line, rule) pairs, in order.
func violationsIn(t *testing.T, out string) []reported {
	t.Helper()
	var found []reported
	for _, text := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if m := violationLine.FindStringSubmatch(text); m != nil {
			line, err := strconv.Atoi(m[2])
			require.NoError(t, err)
			found = append(found, reported{line, m[3]})
		}
	}
	return found
}

func TestCheckRefusesOneBadLogPerRuleAndProperty(t *testing.T) {
	names := append(invariantRules(t), logOnlyProperties()...)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(checkTestdata, "bad", name+".jsonl")
			if u, ok := unreachableByCheck[name]; ok {
				assert.NoFileExists(t, path, "a bad log for %s would need check to break itself", name)
				if !strings.Contains(u.rule, "/") {
					assert.Contains(t, badLogLine, u.rule)
				}
				return
			}
			require.FileExists(t, path, "every invariant rule and log-only property needs a hand-broken log")
			line, ok := badLogLine[name]
			require.True(t, ok, "badLogLine says which line of %s check must blame", path)

			code, out, errOut := simrun("check", path)
			assert.Equal(t, exitViolation, code, errOut)
			assert.Empty(t, errOut)
			want, summary := []reported{{line, name}}, " events, 1 violation"
			if also, ok := alsoBlamed[name]; ok {
				want, summary = append(want, also), " events, 2 violations"
				slices.SortFunc(want, func(a, b reported) int { return a.line - b.line })
			}
			assert.Equal(t, want, violationsIn(t, out), out)
			assert.Contains(t, out, fmt.Sprintf("%s:%d: %s: ", path, line, name))
			assert.Contains(t, out, path+": ")
			assert.Contains(t, out, summary)
		})
	}

	entries, err := os.ReadDir(filepath.Join(checkTestdata, "bad"))
	require.NoError(t, err)
	for _, entry := range entries {
		name := strings.TrimSuffix(entry.Name(), ".jsonl")
		assert.Contains(t, names, name, "%s names no invariant rule or log-only property", entry.Name())
	}
}

// The properties that check cannot reach on their own are not dead: run without the layer in
// front, on the logs that stand in for them, they fire.
func TestUnreachablePropertiesFireWithoutTheLayerInFront(t *testing.T) {
	for name, u := range unreachableByCheck {
		standIn := filepath.Join(checkTestdata, "bad", u.rule+".jsonl")
		if strings.Contains(u.rule, "/") {
			standIn = filepath.Join(checkTestdata, u.rule+".jsonl")
		}
		data, err := os.ReadFile(standIn)
		require.NoError(t, err)
		events, err := eventjson.Read(bytes.NewReader(data))
		require.NoError(t, err)
		if name == "log-replays" {
			data = data[:bytes.IndexByte(data, '\n')+1] // bytes that disagree with the events
		}
		var fired []string
		for _, v := range properties.CheckLog(events, data) {
			fired = append(fired, v.Property)
		}
		assert.Contains(t, fired, name)
	}
}

func TestCheckAcceptsTheScenarioLogs(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, name := range sim.ScenarioNames() {
		result, err := sim.SimulateScenario(name, 1)
		require.NoError(t, err, name)
		var buf bytes.Buffer
		require.NoError(t, eventjson.Write(&buf, result.Events))
		path := filepath.Join(dir, name+".jsonl")
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
		paths = append(paths, path)
	}
	code, out, errOut := simrun(append([]string{"check"}, paths...)...)
	assert.Equal(t, exitOK, code, out)
	assert.Empty(t, errOut)
	for _, path := range paths {
		assert.Regexp(t, regexp.QuoteMeta(path)+`: \d+ events, ok\n`, out)
	}
	assert.Empty(t, violationsIn(t, out))
}

func TestCheckAcceptsTheHandMadeGoodLogs(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(checkTestdata, "good", "*.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, path := range paths {
		code, out, errOut := simrun("check", path)
		assert.Equal(t, exitOK, code, out)
		assert.Empty(t, errOut)
		assert.Regexp(t, `^`+regexp.QuoteMeta(path)+`: \d+ events, ok\n$`, out)
	}
}

// Hand-made logs are in the exact form the harness writes: decoding and re-encoding gives the
// same bytes.
func TestTestdataLogsAreInTheHarnessForm(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(checkTestdata, "*", "*.jsonl"))
	require.NoError(t, err)
	for _, path := range paths {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		events, err := eventjson.Read(bytes.NewReader(data))
		require.NoError(t, err, path)
		var again bytes.Buffer
		require.NoError(t, eventjson.Write(&again, events))
		assert.Equal(t, string(data), again.String(), path)
		assert.LessOrEqual(t, len(events), 15, "%s: keep testdata small", path)
	}
}

// writeLog writes content to a fresh file and returns its path.
func writeLog(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

func goodLog(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(checkTestdata, "good", "minimal.jsonl"))
	require.NoError(t, err)
	return string(data)
}

func TestCheckWarnsAboutATornLastLineAndChangesNothing(t *testing.T) {
	content := goodLog(t) + `{"seq":11,"type":"user/mess`
	path := writeLog(t, "torn.jsonl", content)
	before, err := os.Stat(path)
	require.NoError(t, err)

	code, out, errOut := simrun("check", path)
	assert.Equal(t, exitOK, code)
	assert.Equal(t, path+": line 11: torn last line (a write cut short by a crash); checked the lines before it\n", errOut)
	assert.Equal(t, path+": 10 events, ok\n", out)

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, content, string(data), "check never writes")
	after, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, before.ModTime(), after.ModTime())
}

func TestCheckReportsAnUnreadableLineAndExitsTwo(t *testing.T) {
	lines := strings.SplitAfter(goodLog(t), "\n")
	cases := map[string]struct {
		line, says string
	}{
		"not JSON":      {"{\"seq\":4,\n", "unexpected end of JSON input"},
		"blank":         {"\n", "blank line"},
		"unknown type":  {`{"seq":4,"type":"step/pause","time":0,"data":{"turn":1}}` + "\n", `unknown event type "step/pause"`},
		"missing data":  {`{"seq":4,"type":"step/start","time":0}` + "\n", "missing data"},
		"unknown field": {`{"seq":4,"type":"step/start","time":0,"data":{"turn":1,"step":1,"x":0}}` + "\n", `unknown field "x"`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			broken := slices.Clone(lines)
			broken[3] = c.line
			path := writeLog(t, "unreadable.jsonl", strings.Join(broken, ""))
			code, out, errOut := simrun("check", path)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, out)
			assert.True(t, strings.HasPrefix(errOut, path+": unreadable: line 4: "), errOut)
			assert.Contains(t, errOut, c.says)
		})
	}
}

func TestCheckReportsIndependentBreakagesOnce(t *testing.T) {
	lines := strings.SplitAfter(goodLog(t), "\n")[:10]
	broken := slices.Clone(lines)
	// Line 6: a chunk naming a step that is not open. Lines 7 on: one seq missing (7 skipped).
	broken[5] = strings.Replace(lines[5], `"step":1`, `"step":3`, 1)
	for i := 6; i < 10; i++ {
		broken[i] = strings.Replace(lines[i], fmt.Sprintf(`"seq":%d`, i+1), fmt.Sprintf(`"seq":%d`, i+2), 1)
	}
	path := writeLog(t, "twice.jsonl", strings.Join(broken, ""))
	code, out, _ := simrun("check", path)
	assert.Equal(t, exitViolation, code)
	assert.Equal(t, []reported{{6, harness.RuleScope}, {7, harness.RuleSeq}}, violationsIn(t, out), out)
	assert.Contains(t, out, path+":7: seq: assistant/chunk: seq 8 does not follow 6\n")
	assert.Contains(t, out, path+": 10 events, 2 violations (properties not checked")
}

func TestCheckSeveralFiles(t *testing.T) {
	good := writeLog(t, "good.jsonl", goodLog(t))
	bad := filepath.Join(checkTestdata, "bad", "max-tokens-sticky.jsonl")
	unreadable := writeLog(t, "unreadable.jsonl", "{}\n")
	empty := writeLog(t, "empty.jsonl", "")

	code, out, errOut := simrun("check", good, bad, empty)
	assert.Equal(t, exitViolation, code, "a violation anywhere: 1")
	assert.Empty(t, errOut)
	assert.Equal(t, good+": 10 events, ok\n"+
		bad+":11: max-tokens-sticky: turn 1 ended completed although a step ended max-tokens\n"+
		bad+": 11 events, 1 violation\n"+
		empty+": 0 events, ok\n", out)

	code, out, errOut = simrun("check", good, unreadable, bad, filepath.Join(t.TempDir(), "missing.jsonl"))
	assert.Equal(t, exitUsage, code, "an unreadable file anywhere: 2, and the others are still checked")
	assert.Contains(t, out, good+": 10 events, ok\n")
	assert.Contains(t, out, bad+": 11 events, 1 violation\n")
	assert.Contains(t, errOut, unreadable+": unreadable: line 1: harness: event: missing seq\n")
	assert.Contains(t, errOut, "missing.jsonl: unreadable: no such file or directory\n")
}

func TestCheckJSON(t *testing.T) {
	good := writeLog(t, "good.jsonl", goodLog(t))
	torn := writeLog(t, "torn.jsonl", goodLog(t)+"{")
	bad := filepath.Join(checkTestdata, "bad", "scope.jsonl")
	unreadable := writeLog(t, "unreadable.jsonl", "\n")

	code, out, errOut := simrun("check", "-json", good, torn, bad, unreadable)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, unreadable+": unreadable: line 1: blank line")
	assert.Contains(t, errOut, torn+": line 11: torn last line")

	var report struct {
		Files []struct {
			File       string `json:"file"`
			Events     int    `json:"events"`
			Violations []struct {
				Line    int    `json:"line"`
				Rule    string `json:"rule"`
				Message string `json:"message"`
			} `json:"violations"`
			Torn              bool   `json:"torn"`
			PropertiesChecked bool   `json:"propertiesChecked"`
			Error             string `json:"error"`
		} `json:"files"`
		Violations int `json:"violations"`
	}
	decoder := json.NewDecoder(strings.NewReader(out))
	decoder.DisallowUnknownFields()
	require.NoError(t, decoder.Decode(&report), out)
	assert.False(t, decoder.More(), "one JSON object")
	assert.Equal(t, 1, report.Violations)
	require.Len(t, report.Files, 4)

	assert.Equal(t, good, report.Files[0].File)
	assert.Equal(t, 10, report.Files[0].Events)
	assert.NotNil(t, report.Files[0].Violations, "an empty list, not null")
	assert.Empty(t, report.Files[0].Violations)
	assert.True(t, report.Files[0].PropertiesChecked)

	assert.True(t, report.Files[1].Torn)
	assert.Equal(t, 10, report.Files[1].Events)

	assert.False(t, report.Files[2].PropertiesChecked)
	require.Len(t, report.Files[2].Violations, 1)
	assert.Equal(t, 7, report.Files[2].Violations[0].Line)
	assert.Equal(t, harness.RuleScope, report.Files[2].Violations[0].Rule)
	assert.Equal(t, "assistant/chunk: names turn 1 step 2, but the open step is turn 1 step 1", report.Files[2].Violations[0].Message)

	assert.Equal(t, "line 1: blank line (the harness never writes one)", report.Files[3].Error)

	assert.Contains(t, out, `"error"`, "present for the unreadable file")
	assert.Equal(t, 1, strings.Count(out, `"error"`), "and absent for the others")
}

func TestCheckBadUsageExitsTwo(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		says string
	}{
		{[]string{"check"}, "check needs at least one session log"},
		{[]string{"check", "-json"}, "check needs at least one session log"},
		{[]string{"check", "-bogus", "x.jsonl"}, "flag provided but not defined: -bogus"},
		{[]string{"check", dir}, dir + ": unreadable: is a directory, not a session log"},
		{[]string{"check", filepath.Join(dir, "nope.jsonl")}, filepath.Join(dir, "nope.jsonl") + ": unreadable: no such file or directory"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, out, errOut := simrun(c.args...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, out, "nothing on stdout")
			assert.Contains(t, errOut, c.says)
		})
	}
	code, _, errOut := simrun("check", "-h")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, errOut, "usage: simrun check [-json] [-late D] FILE…")
}

// A crash leaves its turn open at the end of the log; crash repair closes it when the agent next
// opens the log. check says so, apart from the violations, and exits 0.
func TestCheckSaysAnOpenLastTurnNeedsRepair(t *testing.T) {
	path := filepath.Join(checkTestdata, "repair", "open-last-turn.jsonl")
	code, out, errOut := simrun("check", path)
	assert.Equal(t, exitOK, code, out)
	assert.Empty(t, errOut)
	assert.Empty(t, violationsIn(t, out))
	assert.Contains(t, out, "ok; needs crash repair: turn 1 is open at the end of the log")

	code, out, _ = simrun("check", "-json", path)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, `"needsRepair": 1`)
}

// A real timer fires late: 90 ms over a 510 ms delay is no violation under the default
// tolerance, is one with -late 0 (the simulator's exactness) and with a tolerance below it.
func TestCheckLateTolerance(t *testing.T) {
	path := filepath.Join(checkTestdata, "late", "ninety-ms-late.jsonl")
	code, out, errOut := simrun("check", path)
	assert.Equal(t, exitOK, code, out+errOut)

	for _, late := range []string{"0", "50ms"} {
		code, out, _ = simrun("check", "-late", late, path)
		assert.Equal(t, exitViolation, code, late)
		assert.Equal(t, []reported{{4, "retry-started-on-time"}}, violationsIn(t, out), late)
	}
	code, _, errOut = simrun("check", "-late", "-1s", path)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "negative")
}
