package weathersim_test

import (
	"fmt"
	"os"
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

// requireMutant skips unless this test binary was built with the mutant planted:
//
//	TURNSIM_MUTANT=cancelled-answers-empty-forecast go test -overlay \
//	  "$(go run ./cmd/weathersim mutate -overlay cancelled-answers-empty-forecast)" -run Mutant ./...
func requireMutant(t *testing.T, name string) {
	t.Helper()
	if os.Getenv("TURNSIM_MUTANT") != name {
		t.Skipf("needs the %s mutant planted (go test -overlay; see requireMutant)", name)
	}
}

// TestMutantForecastDefectIsCaughtAndShrunk: with the mutant planted, a cancelled lookup answers
// an empty forecast; the agent's own property catches it, with a one-line repro and a shrunk
// schedule.
func TestMutantForecastDefectIsCaughtAndShrunk(t *testing.T) {
	requireMutant(t, "cancelled-answers-empty-forecast")
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
