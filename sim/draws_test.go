package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
)

// The world records what its random source serves the harness, in order: a Float64 for each
// local delay, drawn before its llm/retry is written, and a 16-byte Read for each new chain's
// retry id. Recording changes nothing the harness sees: the same schedule gives the same log.
func TestTheWorldRecordsEveryDrawItServes(t *testing.T) {
	retried := 0
	for seed := int64(1); seed <= 100; seed++ {
		s := NewSchedule(seed, []string{faults.Server, faults.Timeout})
		s.Plan.RetryStrategy = ""
		o := RunSchedule(s)
		floats, reads := 0, 0
		for _, d := range o.Trace.Draws {
			if d.Read {
				reads++
				assert.Equal(t, 16, d.ReadBytes, "seed %d: a retry id is 16 bytes", seed)
			} else {
				floats++
				assert.True(t, d.Float >= 0 && d.Float < 1, "seed %d: %g", seed, d.Float)
			}
		}
		local, chains := 0, map[string]bool{}
		for _, e := range o.Log {
			if r, ok := e.Data.(harness.LlmRetry); ok {
				retried++
				chains[r.RetryID] = true
				if !r.Failure.HasRetryAfter() {
					local++
					require.True(t, hasFloatBefore(o.Trace.Draws, e.Seq), "seed %d: llm/retry %d has no Float64 drawn before it", seed, e.Seq)
				}
			}
		}
		assert.GreaterOrEqual(t, floats, local, "seed %d", seed)
		assert.GreaterOrEqual(t, reads, len(chains), "seed %d", seed)
		assert.Equal(t, o.Digest, RunSchedule(s).Digest, "seed %d", seed)
	}
	assert.Positive(t, retried, "no seed retried")
}

func hasFloatBefore(draws []properties.Draw, seq int64) bool {
	for _, d := range draws {
		if !d.Read && d.SeqBefore < seq {
			return true
		}
	}
	return false
}
