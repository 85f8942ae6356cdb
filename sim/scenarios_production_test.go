package sim

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
)

// describeAll renders events without their times: real time is not reproducible, the story is.
func describeAll(events []harness.Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = Describe(e)
	}
	return out
}

// withoutDelays blanks the jittered delay of llm/retry lines, which differ between seeds.
func withoutDelays(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if j := strings.Index(l, " delay="); j >= 0 {
			l = l[:j]
		}
		out[i] = l
	}
	return out
}

// The same scenarios run on the production runtime, with real goroutines and the real clock,
// shortened in time: the harness tells the same story outside the simulator. Each scenario's
// scale leaves every race in the story at least 10 ms of margin.
func TestScenariosOnTheProductionRuntime(t *testing.T) {
	scales := map[string]Scale{"always-mode": 0.02, "retry-after": 0.05}
	for _, sc := range Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			scale, ok := scales[sc.Name]
			if !ok {
				scale = 0.2
			}
			real, err := PlayScenario(sc.Build(scale), harness.NewProductionRuntime(nil), 7)
			require.NoError(t, err)
			require.NoError(t, harness.ValidateLog(real.Events))
			assert.True(t, real.Idle)

			simulated, err := SimulateScenario(sc.Name, 7)
			require.NoError(t, err)
			assert.Equal(t, withoutDelays(describeAll(simulated.Events)), withoutDelays(describeAll(real.Events)))
			assert.Equal(t, len(simulated.AgentErrors), len(real.AgentErrors))
			assert.Equal(t, len(simulated.ActionErrors), len(real.ActionErrors))
		})
	}
}
