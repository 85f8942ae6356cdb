package weathersim_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"example.com/weatheragent/weathersim"
	"github.com/turnsim/turnsim/sim"
)

// requireMutant skips unless this test binary was built with the mutant planted (sim.RequireMutant,
// with this module's own command).
func requireMutant(t *testing.T, name string) {
	t.Helper()
	sim.RequireMutant(t, name, "go run ./cmd/weathersim")
}

// TestMutantForecastDefectIsCaughtAndShrunk: with the mutant planted, a cancelled lookup answers
// an empty forecast; the agent's own property catches it, with a one-line repro and a shrunk
// schedule.
func TestMutantForecastDefectIsCaughtAndShrunk(t *testing.T) {
	requireMutant(t, "cancelled-answers-empty-forecast")
	rec := &sim.Recorder{}
	sim.Check(rec, sim.CheckOptions{Seeds: 1000, Agent: weathersim.Agent(), ShrinkBudget: 10 * time.Second})
	require.NotEmpty(t, rec.Errors, "the planted defect went unnoticed")
	first := rec.Errors[0]
	assert.Contains(t, first, "forecast-names-its-city")
	assert.Regexp(t, `reproduce: TURNSIM_SEED=\d+ go test`, first)
	shrunk := rec.Errors[len(rec.Errors)-1]
	assert.Contains(t, shrunk, "shrunk for forecast-names-its-city")
	t.Log(first[:strings.Index(first, "\n")])
	t.Log(shrunk)
}
