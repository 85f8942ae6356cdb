package sim

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/eventjson"
	"github.com/turnsim/turnsim/properties"
)

// storyMargin is the lateness under which a scenario's story is determined: each scenario's
// scale leaves every race in it at least 10 ms of margin, and either side of a race may be late,
// so both must stay under half of it.
const storyMargin = 5 * time.Millisecond

// lateWatch wraps the production runtime and measures how late the machine ran: how far past its
// delay each uncancelled Sleep returned, how long each started task waited to run, and how late a
// 1 ms probe ticked while the scenario played (a starved goroutine between two sleeps shows
// there). It decides nothing about the harness; it says whether the exact story was owed.
type lateWatch struct {
	harness.Runtime
	mu      sync.Mutex
	maxLate time.Duration
}

func (w *lateWatch) saw(late time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.maxLate = max(w.maxLate, late)
}

func (w *lateWatch) late() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.maxLate
}

func (w *lateWatch) Sleep(d time.Duration, cancel ...context.Context) error {
	start := time.Now()
	err := w.Runtime.Sleep(d, cancel...)
	if err == nil {
		w.saw(time.Since(start) - d)
	}
	return err
}

func (w *lateWatch) Go(name string, fn func()) {
	start := time.Now()
	w.Runtime.Go(name, func() {
		w.saw(time.Since(start))
		fn()
	})
}

// probe ticks every millisecond until stop is closed, recording each tick's lateness.
func (w *lateWatch) probe(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for {
		start := time.Now()
		select {
		case <-stop:
			return
		case <-time.After(time.Millisecond):
			w.saw(time.Since(start) - time.Millisecond)
		}
	}
}

// The same scenarios run on the production runtime, with real goroutines and the real clock,
// shortened in time. What must hold on real goroutines is asserted on every run, however busy
// the machine: the log is well-formed, every turn settles and the agent goes idle, and the
// log-only properties hold (order, pairing, retry budgets and delay windows, and every retry
// started no earlier than its delay and no later than the machine's measured lateness allows).
// The exact story of the simulator is asserted too when the run kept to the scenario's timing
// margins; on a machine so busy that it did not, a race in the story may have gone the other
// way, which is no bug, and the test says so instead of failing.
func TestScenariosOnTheProductionRuntime(t *testing.T) {
	scales := map[string]Scale{"always-mode": 0.02, "retry-after": 0.05}
	for _, sc := range Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			scale, ok := scales[sc.Name]
			if !ok {
				scale = 0.2
			}
			watch := &lateWatch{Runtime: harness.NewProductionRuntime(nil)}
			stop, probed := make(chan struct{}), make(chan struct{})
			go watch.probe(stop, probed)
			real, err := PlayScenario(sc.Build(scale), watch, 7)
			close(stop)
			<-probed
			require.NoError(t, err)

			require.NoError(t, harness.ValidateLog(real.Events), "the log is well-formed")
			assert.True(t, real.Idle, "the agent settles idle")
			var jsonl bytes.Buffer
			require.NoError(t, eventjson.Write(&jsonl, real.Events))
			late := watch.late()
			verdict := properties.CheckLogWith(real.Events, jsonl.Bytes(), properties.LogOptions{LateMs: late.Milliseconds() + 2})
			assert.Empty(t, verdict.Violations, "what must hold on real goroutines")
			assert.Zero(t, verdict.NeedsRepair, "no turn is left open")

			simulated, err := SimulateScenario(sc.Name, 7)
			require.NoError(t, err)
			if late >= storyMargin {
				t.Logf("the machine ran %v late (margin %v): the story's races were not determined, so only what must hold was checked", late, storyMargin)
				return
			}
			assert.Equal(t, Story(simulated.Events), Story(real.Events))
			assert.Equal(t, len(simulated.AgentErrors), len(real.AgentErrors))
			assert.Equal(t, len(simulated.ActionErrors), len(real.ActionErrors))
		})
	}
}
