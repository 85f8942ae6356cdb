package cli_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim"
)

// incidentLog writes the log of a two-turn run (a rate limit retried, a tool call, a second
// message) to a file, as an incident's production log would be.
func incidentLog(t *testing.T) string {
	t.Helper()
	s := sim.NewSchedule(1, nil)
	s.Swarm = nil
	s.Plan = faults.Plan{
		Policy: faults.SpecRetryPolicy(), MaxParallelToolCalls: 4, HorizonMs: 10_000,
		Answers: []faults.Answer{
			{Chunks: 0, ChunkDelayMs: 30, Fail: &faults.Fail{Code: harness.CodeRateLimit, Message: "rate limited", Status: 429, RetryAfterMs: 700}},
			{Chunks: 1, ChunkDelayMs: 20, Calls: []faults.Call{{Name: "read", LatencyMs: 40, Outcome: faults.OutcomeOK}}, Finish: harness.FinishToolCalls},
			{Chunks: 2, ChunkDelayMs: 20, Finish: harness.FinishCompleted},
			{Chunks: 1, ChunkDelayMs: 20, Finish: harness.FinishCompleted},
		},
		Actions: []faults.Action{{AtMs: 0, Kind: faults.ActFollowup, Text: "what time is it?"}, {AtMs: 5_000, Kind: faults.ActFollowup, Text: "and now?"}},
	}
	out := sim.RunSchedule(s)
	require.Empty(t, out.Violations)
	path := filepath.Join(t.TempDir(), "incident.jsonl")
	require.NoError(t, os.WriteFile(path, out.JSONL, 0o644))
	return path
}

// oneTurn is an agent's own property the two-turn incident breaks: replayed on an agent that has
// it, the incident fails (exit 1); on one without, the same schedule passes (exit 0): "does the
// fix hold for this incident?"
var oneTurn = properties.Define("one-turn", "planted: a session has one turn at most", func(r *properties.Run, report *properties.Reporter) {
	for _, e := range r.Log {
		if s, ok := e.Data.(harness.TurnStart); ok && s.Turn == 2 {
			report.Errorf(e.Seq, e.Time, "turn 2 started")
		}
	}
})

func TestReplayWritesTheIncidentAgainAndJudgesIt(t *testing.T) {
	log := incidentLog(t)
	schedule := filepath.Join(t.TempDir(), "incident.json")
	code, out, stderr := main(sim.Agent{Properties: []properties.Property{oneTurn}}, "replay", log, "-o", schedule)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, out, "the log matches the incident's, event for event")
	assert.Contains(t, out, "replay: one-turn")
	assert.Contains(t, out, "reproduce: mysim repro "+schedule)

	code, out, stderr = main(sim.Agent{}, "replay", log)
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "replay: no violations")

	code, _, stderr = main(sim.Agent{Properties: []properties.Property{oneTurn}}, "repro", schedule)
	assert.Equal(t, 1, code, "the kept schedule fails as the replay did: %s", stderr)
	code, _, _ = main(sim.Agent{}, "repro", schedule)
	assert.Equal(t, 0, code)
}

// Logs a replay cannot read faithfully are refused with exit 2 and a message naming the line.
func TestReplayRefusesBadLogsNamingTheLine(t *testing.T) {
	data, err := os.ReadFile(incidentLog(t))
	require.NoError(t, err)
	lines := strings.SplitAfter(string(data), "\n")
	dir := t.TempDir()
	cases := map[string]struct{ log, says string }{
		"torn": {string(data) + `{"seq":99,"ty`, ":" + strconv.Itoa(len(lines)) + ": the last line is torn"},
		// A line that is no event is refused by the reader check uses too, before the log is
		// read whole: in its words, the line named.
		"foreign": {lines[0] + "PK\x03\x04 not a log\n", ": line 2: invalid character 'P'"},
		"newer":   {lines[0] + `{"seq":2,"type":"agent/fork","time":0,"data":{"child":2}}` + "\n", ": line 2: harness: unknown event type \"agent/fork\""},
		"mixed":   {string(data) + lines[0], ":" + strconv.Itoa(len(lines)) + ": seq 1 follows seq"},
	}
	for name, c := range cases {
		path := filepath.Join(dir, name+".jsonl")
		require.NoError(t, os.WriteFile(path, []byte(c.log), 0o644))
		code, out, stderr := main(sim.Agent{}, "replay", path)
		assert.Equal(t, 2, code, name)
		assert.Empty(t, out, name)
		assert.Contains(t, stderr, path+c.says, name)
	}
	code, _, stderr := main(sim.Agent{}, "replay", "-o", filepath.Join(dir, "torn.jsonl"), filepath.Join(dir, "torn.jsonl"))
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "would be overwritten")
}
