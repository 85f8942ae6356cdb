package sim_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/sim"
)

// sim's tests link no wire: no seed draws one, and a schedule whose plan sends an answer over
// the wire is refused with the import that would run it.
func TestWithoutTheWire(t *testing.T) {
	require.False(t, sim.WireRegistered(), "sim's own test binary must not link the provider SDKs")
	for seed := int64(1); seed <= 200; seed++ {
		for _, a := range sim.NewSchedule(seed, nil).Plan.Answers {
			require.Nil(t, a.Wire, "seed %d", seed)
		}
	}
	s := sim.NewSchedule(1, nil)
	s.Plan.Answers[0] = faults.Answer{Chunks: 1, ChunkDelayMs: 10, Finish: "completed", Wire: &faults.Wire{Protocol: faults.ProtocolOpenAI}}
	data, err := s.MarshalIndent()
	require.NoError(t, err)
	_, err = sim.ParseSchedule(data)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `import _ "github.com/turnsim/turnsim/sim/wire"`)
	assert.NoError(t, sim.CheckFaults([]string{faults.RateLimit}))
	err = sim.CheckFaults([]string{faults.RateLimit, faults.WireStall})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "wire-stall")
}
