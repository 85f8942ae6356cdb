package cli

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wellFormedPolylines parses an SVG document as XML (failing on anything malformed) and returns
// the data-policy of each polyline, in order, and every text.
func wellFormedPolylines(t *testing.T, data []byte) (policies, texts []string) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	inText := false
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "the SVG is well-formed XML")
		switch el := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = el.Name.Local
				assert.Equal(t, "http://www.w3.org/2000/svg", el.Name.Space)
			}
			inText = el.Name.Local == "text"
			if el.Name.Local == "polyline" || el.Name.Local == "path" {
				for _, a := range el.Attr {
					if a.Name.Local == "data-policy" {
						policies = append(policies, a.Value)
					}
				}
			}
		case xml.CharData:
			if inText {
				texts = append(texts, string(el))
			}
		case xml.EndElement:
			inText = false
		}
	}
	assert.Equal(t, "svg", root)
	return policies, texts
}

// The command: the table, and with -svg the chart, one line per policy.
func TestPolicyPrintsTheTableAndWritesTheChart(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "load.svg")
	code, out, errOut := simrun("policy", "-policies", "seed-default,full-jitter,sdk,grpc-throttle", "-agents", "200", "-svg", svg)
	require.Equal(t, exitOK, code, errOut)
	assert.Empty(t, errOut, "no violation, nothing to warn about")
	assert.Contains(t, out, "200 agents × 3 requests, capacity mode (50 requests/s, 40 at once, service 800 ms), seeds 1–3, averaged")
	assert.Contains(t, out, "attempts")
	assert.Contains(t, out, "peak/100ms")
	lines := strings.Split(out, "\n")
	for _, policy := range []string{"seed-default", "full-jitter", "sdk", "grpc-throttle"} {
		found := false
		for _, line := range lines {
			fields := strings.Fields(line)
			if len(fields) == 9 && fields[0] == policy {
				found = true
			}
		}
		assert.True(t, found, "a row of 9 columns for %s", policy)
	}
	data, err := os.ReadFile(svg)
	require.NoError(t, err)
	policies, texts := wellFormedPolylines(t, data)
	assert.Equal(t, []string{"seed-default", "full-jitter", "sdk", "grpc-throttle"}, policies)
	for _, label := range []string{"virtual time (s)", "requests per 100 ms (mean over seeds)", "seed-default", "grpc-throttle", "Load over time per policy"} {
		assert.Contains(t, texts, label)
	}
	// The same seeds, the same table.
	_, again, _ := simrun("policy", "-policies", "seed-default,full-jitter,sdk,grpc-throttle", "-agents", "200")
	assert.Equal(t, out, again)
}

func TestPolicyJSONAndOCCMode(t *testing.T) {
	params := filepath.Join(t.TempDir(), "brooker.json")
	require.NoError(t, os.WriteFile(params, []byte(`{"none": {"always": true}, "full-jitter": {"baseMs": 5, "capMs": 2000, "always": true}}`), 0o644))
	code, out, errOut := simrun("policy", "-mode", "occ", "-agents", "30", "-policies", "none,full-jitter", "-params", params, "-seeds", "2", "-json")
	require.Equal(t, exitOK, code, errOut)
	var report struct {
		Agents   int     `json:"agents"`
		Seeds    []int64 `json:"seeds"`
		Policies []struct {
			Policy, Key    string
			Attempts       float64
			GaveUp         float64 `json:"gaveUp"`
			LoadPer100Ms   []float64
			CompletionP99  float64 `json:"completionP99Ms"`
			Violations     int
			Amplification  float64
			LogicalRequest float64 `json:"logicalRequests"`
		} `json:"policies"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &report))
	assert.Equal(t, 30, report.Agents)
	assert.Equal(t, []int64{1, 2}, report.Seeds)
	require.Len(t, report.Policies, 2)
	none, full := report.Policies[0], report.Policies[1]
	assert.Equal(t, "none/always", none.Key)
	assert.Equal(t, "full-jitter/base=5/cap=2000/always", full.Key)
	for _, p := range report.Policies {
		assert.Equal(t, 30.0, p.LogicalRequest, "one request per client")
		assert.Zero(t, p.GaveUp, "always mode: every client succeeds")
		assert.Zero(t, p.Violations)
		assert.NotEmpty(t, p.LoadPer100Ms)
	}
	assert.Less(t, full.Attempts, none.Attempts, "jitter spares the row")
}

// Bad input: exit 2, a message naming the problem, nothing on stdout, no file written.
func TestPolicyBadInputExitsTwoAndWritesNothing(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
		return path
	}
	nan := file("nan.json", `{"full-jitter": {"baseMs": NaN}}`)
	unknownField := file("field.json", `{"full-jitter": {"baseMs": 5, "jitter": 0.5}}`)
	negative := file("negative.json", `{"exponential": {"baseMs": -5}}`)
	jitter := file("jitter.json", `{"sdk": {"jitterRatio": 1.5}}`)
	budget := file("budget.json", `{"full-jitter": {"maxRetries": 0}}`)
	family := file("family.json", `{"gremlins": {}}`)
	twice := file("twice.json", `{"full-jitter": {"baseMs": 5, "baseMs": 6}}`)
	unused := file("unused.json", `{"full-jitter": {"baseMs": 5}}`)
	cases := []struct {
		args []string
		says string
	}{
		{[]string{"-policies", "full-jitter,gremlins"}, `unknown strategy "gremlins"`},
		{[]string{"-policies", "sdk,sdk"}, `policy "sdk" named twice`},
		{[]string{"-policies", "sdk,"}, "names an empty policy"},
		{[]string{"-params", nan}, "full-jitter.baseMs: not valid JSON"},
		{[]string{"-params", unknownField}, "full-jitter: jitter: unknown field"},
		{[]string{"-params", negative}, "exponential: baseMs: -5 is negative"},
		{[]string{"-params", jitter}, "sdk: jitterRatio: 1.5 is outside [0, 1]"},
		{[]string{"-params", budget}, "full-jitter: maxRetries: 0 is below 1"},
		{[]string{"-params", family}, `unknown strategy "gremlins"`},
		{[]string{"-params", twice}, `the key "baseMs" appears twice in one object`},
		{[]string{"-params", unused, "-policies", "seed-default"}, `sets "full-jitter", which -policies (seed-default) does not compare`},
		{[]string{"-params", filepath.Join(dir, "missing.json")}, "no such file"},
		{[]string{"-mode", "lottery"}, `-mode "lottery" is not capacity or occ`},
		{[]string{"-agents", "0"}, "agents: 0 is outside 1..1000"},
		{[]string{"-agents", "1001"}, "agents: 1001 is outside 1..1000"},
		{[]string{"-seeds", "0"}, "need at least 1 seed"},
		{[]string{"-requests", "0"}, "need at least 1 followup"},
		{[]string{"-outage", "soon"}, `-outage "soon" is not from,to`},
		{[]string{"-outage", "500,100"}, "outage: ends at 100 ms, before it starts at 500 ms"},
		{[]string{"-rps", "-3"}, "requestsPerSecond: -3"},
		{[]string{"-server-fraction", "2"}, "serverFraction: 2 is outside [0, 1]"},
		{[]string{"-hop", "5"}, "-hop is for -mode occ"},
		{[]string{"-mode", "occ", "-rps", "5"}, "-rps is for -mode capacity"},
		{[]string{"-mode", "occ", "-hop", "0"}, "hopMs: 0 is not a finite number > 0"},
		{[]string{"-service", "1e18"}, "serviceMs: 1e+18 is above 2.147483647e+09, the longest a timer waits"},
		{[]string{"-think", "1e18"}, "thinkMs: 1e+18 is above"},
		{[]string{"-spread", "1e18"}, "startSpreadMs: 1e+18 is above"},
		{[]string{"-mode", "occ", "-round", "1e18"}, "roundMs: 1e+18 is above"},
		{[]string{"-outage", "1e18,2e18"}, "is above"},
		{[]string{"-seeds", "ten"}, `invalid value "ten" for flag -seeds`},
		{[]string{"extra"}, "policy takes no arguments"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			svg := filepath.Join(dir, "chart.svg")
			code, out, errOut := simrun(append([]string{"policy", "-agents", "5", "-svg", svg}, c.args...)...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, out, "nothing on stdout")
			assert.Contains(t, errOut, c.says)
			assert.NoFileExists(t, svg, "nothing written")
		})
	}
	code, _, errOut := simrun("policy", "-agents", "5", "-svg", filepath.Join(dir, "no-such-folder", "chart.svg"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "does not exist")
}
