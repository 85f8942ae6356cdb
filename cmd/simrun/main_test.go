package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/eventjson"
	"github.com/turnsim/turnsim/sim/cli"
)

// The exit codes, as the tests name them.
const (
	exitOK    = cli.ExitOK
	exitUsage = cli.ExitUsage
)

// simrun runs the command in-process and returns its exit code, stdout and stderr.
func simrun(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := cli.Main(args, &stdout, &stderr, options())
	return code, stdout.String(), stderr.String()
}

func TestScenarioPrintsItsJSONLinesLog(t *testing.T) {
	code, out, errOut := simrun("scenario", "cancel-mid-backoff")
	require.Equal(t, exitOK, code, errOut)
	events, err := eventjson.Read(strings.NewReader(out))
	require.NoError(t, err)
	require.NoError(t, harness.ValidateLog(events))
	types := make([]string, len(events))
	for i, e := range events {
		types[i] = e.Type
	}
	assert.Equal(t, []string{"user/message", "inbox/push", "turn/start", "step/start", "inbox/claim", "llm/retry", "step/end", "turn/end"}, types)
	assert.Contains(t, out, `"reason":{"kind":"aborted","reason":{"kind":"user"}}`)

	_, again, _ := simrun("scenario", "-seed", "1", "cancel-mid-backoff")
	assert.Equal(t, out, again, "the same seed gives the same bytes")
	_, flagAfter, _ := simrun("scenario", "cancel-mid-backoff", "-seed", "1")
	assert.Equal(t, out, flagAfter, "flags may follow the name")
}

func TestScenarioTimeline(t *testing.T) {
	code, out, _ := simrun("scenario", "-timeline", "drain")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "+1.000s  tool/result 1.1 c2 TOOL_ABORTED_BEFORE_DISPATCH")
}

func TestScenariosListsEveryScenario(t *testing.T) {
	code, out, _ := simrun("scenarios")
	require.Equal(t, exitOK, code)
	for _, name := range []string{"durable-before-wait", "sticky-max-tokens", "drain", "finally", "cancel-mid-backoff", "retry-then-max-tokens", "disposed-no-wake", "always-mode", "retry-after"} {
		assert.Contains(t, out, name)
	}
}

func TestBadUsageExitsTwoAndSaysWhat(t *testing.T) {
	cases := []struct {
		args []string
		says string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"scenario"}, "needs exactly one scenario name"},
		{[]string{"scenario", "a", "b"}, "needs exactly one scenario name"},
		{[]string{"scenario", "nope"}, `unknown scenario "nope"`},
		{[]string{"scenario", "-bogus", "drain"}, "flag provided but not defined: -bogus"},
		{[]string{"scenario", "-seed", "x", "drain"}, `invalid value "x" for flag -seed`},
		{[]string{"scenarios", "extra"}, "takes no arguments"},
		{[]string{"run", "-shard", "5/4"}, `shard "5/4": i must be between 1 and n`},
		{[]string{"run", "-shard", "half"}, `shard "half" is not of the form i/n`},
		{[]string{"run", "-faults", "rate-limit,gremlins"}, `unknown fault "gremlins"`},
		{[]string{"run", "-faults", "rate-limit,rate-limit"}, `fault "rate-limit" named twice`},
		{[]string{"run", "-seeds", "0"}, "need at least 1 seed"},
		{[]string{"run", "-workers", "0"}, "-workers 0: need 1 to 256 workers"},
		{[]string{"run", "-seed", "3", "-seeds", "10"}, "-seed runs one seed"},
		{[]string{"run", "-seeds", "ten"}, `invalid value "ten" for flag -seeds`},
		{[]string{"run", "extra"}, "run takes no arguments"},
		{[]string{"-bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"repro"}, "repro needs -seed S or one schedule file"},
		{[]string{"repro", "-seed", "1", "x.json"}, "not both"},
		{[]string{"repro", "no-such-file.json"}, "no such file"},
		{[]string{"faults", "x"}, "takes no arguments"},
		{[]string{"properties", "x"}, "takes no arguments"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, out, errOut := simrun(c.args...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, out, "nothing on stdout")
			assert.Contains(t, errOut, c.says)
		})
	}
}

func TestHelpExitsZero(t *testing.T) {
	code, out, _ := simrun("help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "scenario")
	code, _, errOut := simrun("scenario", "-h")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, errOut, "usage: simrun scenario")
}
