package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness/eventjson"
)

// The world keeps the agent's log with the real file store: after a torn write, the restart goes
// through the store's own torn-tail cut, and when the run is over the simulated disk holds,
// byte for byte, the JSON Lines of the session's log.
func TestTheWorldRunsTheRealFileStoreThroughATornWrite(t *testing.T) {
	noLeaks(t)
	for seed := int64(1); seed <= 500; seed++ {
		w, out := runWorld(NewSchedule(seed, []string{faults.TornWrite}), Agent{})
		torn := false
		for _, r := range out.Trace.Restarts {
			torn = torn || r.Torn
		}
		if !torn {
			continue
		}
		t.Logf("seed %d: %d crashes, %d restarts", seed, len(out.Trace.Crashes), len(out.Trace.Restarts))
		assert.Empty(t, out.Violations)
		require.NotNil(t, w.disk)
		encoded, err := eventjson.Append(nil, out.Log)
		require.NoError(t, err)
		assert.Equal(t, string(encoded), string(w.disk.contents(sessionLogPath)), "the disk holds the session's log, and nothing else")
		assert.Equal(t, string(out.JSONL), string(out.Trace.DurableAtEnd), "and every line of it is synced")
		crash := out.Trace.Crashes[0]
		assert.True(t, crash.InAppend)
		assert.Equal(t, faults.WrittenTorn, crash.Written)
		return
	}
	t.Fatal("no seed of torn-write restarted from a torn line")
}

// The real store syncs every line before its append returns, so a power loss at a scheduling
// point finds nothing unsynced; inside an append it takes the part of the line written. Either
// way no acknowledged event is lost.
func TestAPowerLossTakesOnlyWhatNoAppendReturnedFor(t *testing.T) {
	noLeaks(t)
	atPoint, inAppendDropped := 0, 0
	for seed := int64(1); seed <= 300; seed++ {
		// power losses among enough work (sends, tool calls, slow streams) that an armed loss
		// finds an append to strike inside
		s := NewSchedule(seed, []string{faults.PowerLoss, faults.Followup, faults.Steer, faults.ToolCalls, faults.ToolLatency, faults.SlowStream})
		w, out := runWorld(s, Agent{})
		assert.Empty(t, out.Violations, "seed %d", seed)
		for _, c := range out.Trace.Crashes {
			require.True(t, c.PowerLoss, "seed %d: only power losses are planned", seed)
			switch {
			case !c.InAppend:
				atPoint++
				assert.Zero(t, c.DroppedBytes, "seed %d: a power loss between appends finds every line synced", seed)
			case c.Written != faults.WrittenNone:
				inAppendDropped++
				assert.Positive(t, c.DroppedBytes, "seed %d: the line being written was not synced yet", seed)
			}
		}
		if len(out.Trace.Crashes) > 0 && !w.down {
			assert.Equal(t, string(out.JSONL), string(w.disk.contents(sessionLogPath)), "seed %d", seed)
		}
	}
	t.Logf("power losses between appends: %d; inside an append, with bytes written: %d", atPoint, inAppendDropped)
	assert.Positive(t, atPoint)
	assert.Positive(t, inAppendDropped)
}

// The outcome takes a kept log's JSON Lines from the disk (world.jsonl) when the agent is up at the
// end: that is only right if the file then holds exactly the encoding of the session's log. Every
// run the shortcut serves must find the two the same, byte for byte: over the default mix, and over
// mixes of crashes and power losses, where a repair or a torn tail could make them differ. (The
// runs it does not serve encode the log, which needs no test.)
func TestAKeptLogsFileIsTheSessionsJSONLines(t *testing.T) {
	for _, mix := range [][]string{nil, {faults.Crash, faults.ToolCalls}, {faults.PowerLoss, faults.TornWrite, faults.Steer}} {
		served := 0
		for seed := int64(1); seed <= 300; seed++ {
			w, out := runWorld(NewSchedule(seed, mix), Agent{})
			if w.disk == nil || w.down || hung(out.Report) {
				continue // the shortcut's own condition: the log is encoded
			}
			served++
			encoded, err := eventjson.Append(nil, out.Log)
			require.NoError(t, err)
			require.Equal(t, string(encoded), string(out.JSONL), "mix %v seed %d: the file is the session log's JSON Lines", mix, seed)
		}
		assert.Greater(t, served, 100, "mix %v: most runs keep a durable log and end with the agent up", mix)
	}
}
