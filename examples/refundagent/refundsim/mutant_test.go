package refundsim_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"example.com/refundagent/refundsim"
	"github.com/turnsim/turnsim/sim"
)

// requireMutant skips unless this test binary was built with the mutant planted (sim.RequireMutant,
// with this module's own command).
func requireMutant(t *testing.T, name string) {
	t.Helper()
	sim.RequireMutant(t, name, "go run ./cmd/refundsim")
}

// TestMutantDoubleRefundIsCaughtByTheAim: with the mutant planted, a refund re-sent after a
// cancel lost its answer is applied twice. Aimed at a cancel while the refund tool runs, Check
// finds it within its default thousand seeds, with a one-line repro and a shrunk schedule.
func TestMutantDoubleRefundIsCaughtByTheAim(t *testing.T) {
	requireMutant(t, "key-per-request")
	rec := &sim.Recorder{}
	sim.Check(rec, sim.CheckOptions{Agent: refundsim.Agent(), ShrinkBudget: 10 * time.Second})
	require.NotEmpty(t, rec.Errors, "the planted defect went unnoticed in 1,000 aimed seeds")
	first := rec.Errors[0]
	assert.Contains(t, first, "never-refunded-twice")
	assert.Regexp(t, `reproduce: TURNSIM_SEED=\d+ go test`, first)
	shrunk := rec.Errors[len(rec.Errors)-1]
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
