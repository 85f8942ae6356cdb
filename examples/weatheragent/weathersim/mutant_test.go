//go:build planted

package weathersim_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"example.com/weatheragent/weathersim"
	"github.com/turnsim/turnsim/sim"
)

// recordingT keeps what Check reports, so the test can look at it.
type recordingT struct{ errors []string }

func (*recordingT) Helper() {}
func (r *recordingT) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// TestPlantedForecastDefectIsCaughtAndShrunk: with the planted defect (go test -tags planted),
// a cancelled lookup answers an empty forecast; the agent's own property catches it, with a
// one-line repro and a shrunk schedule.
func TestPlantedForecastDefectIsCaughtAndShrunk(t *testing.T) {
	rec := &recordingT{}
	sim.Check(rec, sim.CheckOptions{Seeds: 1000, Agent: weathersim.Agent(), ShrinkBudget: 10 * time.Second})
	require.NotEmpty(t, rec.errors, "the planted defect went unnoticed")
	first := rec.errors[0]
	assert.Contains(t, first, "forecast-names-its-city")
	assert.Regexp(t, `reproduce: TURNSIM_SEED=\d+ go test`, first)
	shrunk := rec.errors[len(rec.errors)-1]
	assert.Contains(t, shrunk, "shrunk for forecast-names-its-city")
	t.Log(first[:strings.Index(first, "\n")])
	t.Log(shrunk)
}
