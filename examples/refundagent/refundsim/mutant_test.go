package refundsim_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"example.com/refundagent/refundsim"
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
//	TURNSIM_MUTANT=key-per-request go test -overlay \
//	  "$(go run ./cmd/refundsim mutate -overlay key-per-request)" -run Mutant ./...
func requireMutant(t *testing.T, name string) {
	t.Helper()
	if os.Getenv("TURNSIM_MUTANT") != name {
		t.Skipf("needs the %s mutant planted (go test -overlay; see requireMutant)", name)
	}
}

// TestMutantDoubleRefundIsCaughtByTheAim: with the mutant planted, a refund re-sent after a
// cancel lost its answer is applied twice. Aimed at a cancel while the refund tool runs, Check
// finds it within its default thousand seeds, with a one-line repro and a shrunk schedule.
func TestMutantDoubleRefundIsCaughtByTheAim(t *testing.T) {
	requireMutant(t, "key-per-request")
	rec := &recordingT{}
	sim.Check(rec, sim.CheckOptions{Agent: refundsim.Agent(), ShrinkBudget: 10 * time.Second})
	require.NotEmpty(t, rec.errors, "the planted defect went unnoticed in 1,000 aimed seeds")
	first := rec.errors[0]
	assert.Contains(t, first, "never-refunded-twice")
	assert.Regexp(t, `reproduce: TURNSIM_SEED=\d+ go test`, first)
	shrunk := rec.errors[len(rec.errors)-1]
	assert.Contains(t, shrunk, "shrunk for never-refunded-twice")
	t.Log(first[:strings.Index(first, "\n")])
	t.Log(shrunk[:strings.Index(shrunk, "\n")])
}

// TestMutantSeedsToFindWithAndWithoutTheAim: the first seed that breaks never-refunded-twice,
// aimed and not. Aimed, it is among the first hundred; unaimed, a random cancel must land in the
// refund's answer (issue_refund is one call in three) and a later call ask again for the same
// order, and a thousand seeds may not be enough.
func TestMutantSeedsToFindWithAndWithoutTheAim(t *testing.T) {
	requireMutant(t, "key-per-request")
	firstFailing := func(agent sim.Agent, seeds int) int64 {
		for seed := int64(1); seed <= int64(seeds); seed++ {
			r := sim.RunSeedAgent(seed, nil, false, agent)
			for _, v := range r.Violations {
				if v.Property == "never-refunded-twice" {
					return seed
				}
			}
		}
		return 0
	}
	aimed := refundsim.Agent()
	unaimed := aimed
	unaimed.Aim = ""
	aimedAt := firstFailing(aimed, 1000)
	require.Positive(t, aimedAt, "aimed, a seed of the first thousand breaks never-refunded-twice")
	assert.LessOrEqual(t, aimedAt, int64(100))
	unaimedAt := firstFailing(unaimed, 1000)
	t.Logf("first seed breaking never-refunded-twice: aimed %d, unaimed %d (0: none of 1,000)", aimedAt, unaimedAt)
	assert.True(t, unaimedAt == 0 || aimedAt <= unaimedAt, "the aim finds it no later")
}
