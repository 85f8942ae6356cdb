package sim_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim"
)

// namedT is a test as Check sees one: a name, errors and logs, all recorded.
type namedT struct {
	name         string
	errors, logs []string
}

func (*namedT) Helper()        {}
func (n *namedT) Name() string { return n.name }
func (n *namedT) Errorf(format string, args ...any) {
	n.errors = append(n.errors, fmt.Sprintf(format, args...))
}
func (n *namedT) Logf(format string, args ...any) {
	n.logs = append(n.logs, fmt.Sprintf(format, args...))
}

// secondTurn fails every seed whose run starts a second turn, once for each turn past the first:
// a property that reports itself several times in one seed.
var secondTurn = properties.Define("one-turn-only", "planted: a run has one turn", func(r *properties.Run, report *properties.Reporter) {
	for _, e := range r.Log {
		if s, ok := e.Data.(harness.TurnStart); ok && s.Turn >= 2 {
			report.Errorf(e.Seq, e.Time, "turn %d started", s.Turn)
		}
	}
})

// A failing seed's repro line names the test and its package by import path, so it works from
// wherever in the module `go test` runs; the properties it broke are counted once each.
func TestCheckReportsAFailureWithARunnableRepro(t *testing.T) {
	rec := &namedT{name: "TestSupportAgent/lookups"}
	sim.Check(rec, sim.CheckOptions{Seeds: 40, Agent: sim.Agent{Properties: []properties.Property{secondTurn}}, ShrinkBudget: -1})
	require.NotEmpty(t, rec.errors)
	var several string
	for _, e := range rec.errors {
		if strings.Count(e, "one-turn-only (event") >= 2 {
			several = e
			break
		}
	}
	require.NotEmpty(t, several, "some seed started three turns: %s", strings.Join(rec.errors, "\n"))
	assert.Contains(t, several, "broke 1 property (one-turn-only):", "one property, however many violations")
	assert.Regexp(t, `reproduce: TURNSIM_SEED=\d+ go test -run '\^TestSupportAgent\$/\^lookups\$' github.com/turnsim/turnsim/sim\n?$`, several)
}

// With Corpus, failures are shrunk and saved there, and every later Check replays them first.
func TestCheckSavesFailuresInItsCorpusAndReplaysThem(t *testing.T) {
	corpus := filepath.Join(t.TempDir(), "corpus")
	agent := sim.Agent{Properties: []properties.Property{secondTurn}}
	first := &namedT{name: "TestAgent"}
	sim.Check(first, sim.CheckOptions{Seeds: 20, Agent: agent, Corpus: corpus, ShrinkBudget: 3 * time.Second})
	files, err := sim.CorpusFiles(corpus)
	require.NoError(t, err)
	require.NotEmpty(t, files, strings.Join(first.errors, "\n"))
	assert.LessOrEqual(t, len(files), 10, "the first ten failing seeds at most")
	assert.Contains(t, strings.Join(first.errors, "\n"), "saved seed ")
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		_, entry, err := sim.LoadSchedule(data)
		require.NoError(t, err)
		assert.Equal(t, "one-turn-only", entry.Property)
	}

	again := &namedT{name: "TestAgent"}
	sim.Check(again, sim.CheckOptions{Seeds: 1, Start: 1, Agent: agent, Corpus: corpus, ShrinkBudget: -1})
	assert.Contains(t, strings.Join(again.errors, "\n"), "still breaks:", "the corpus replays first")

	files, err = sim.CorpusFiles(corpus) // the run above may have kept seed 1 again, unshrunk
	require.NoError(t, err)
	fixed := &namedT{name: "TestAgent"}
	sim.Check(fixed, sim.CheckOptions{Seeds: 10, Corpus: corpus})
	assert.Empty(t, fixed.errors, "without the planted property, every corpus file passes")
	require.Len(t, fixed.logs, 1)
	assert.Contains(t, fixed.logs[0], fmt.Sprintf("after replaying %d corpus files from %s", len(files), corpus))
}

// A pass says what it covered: seeds, properties, the faults that struck and the agent's tools.
func TestCheckSummarisesAPass(t *testing.T) {
	lookup := func(rt harness.Runtime) []harness.Tool {
		return []harness.Tool{{Name: "lookup", Parallel: true, Run: func(ctx context.Context, _ string) (string, error) {
			return "found", rt.Sleep(100*time.Millisecond, ctx)
		}}}
	}
	rec := &namedT{name: "TestAgent"}
	sim.Check(rec, sim.CheckOptions{Seeds: 300, Agent: sim.Agent{Tools: lookup}})
	require.Empty(t, rec.errors)
	require.Len(t, rec.logs, 1, "one summary, no warning")
	summary := rec.logs[0]
	assert.Contains(t, summary, "sim: 300 seeds (from 1) passed ")
	assert.Contains(t, summary, "faults that struck (seeds): rate-limit ")
	assert.Regexp(t, `the agent's tools: lookup \d+ runs \(\d+ errors\)`, summary)
}

// A tool that waits on the wall clock instead of its runtime is named in a warning: it slows
// every run, and nothing else would say so.
func TestCheckWarnsAboutAToolOnTheWallClock(t *testing.T) {
	sleepy := func(harness.Runtime) []harness.Tool {
		return []harness.Tool{{Name: "sleepy", Parallel: true, Run: func(context.Context, string) (string, error) {
			time.Sleep(2 * time.Millisecond) // the defect
			return "done", nil
		}}}
	}
	rec := &namedT{name: "TestAgent"}
	sim.Check(rec, sim.CheckOptions{Seeds: 100, Agent: sim.Agent{Tools: sleepy}})
	warnings := strings.Join(rec.logs, "\n")
	assert.Contains(t, warnings, `sim: warning: tool "sleepy" took `)
	assert.Contains(t, warnings, "instead of rt.Sleep(d, ctx)")
}
