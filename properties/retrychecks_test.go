package properties

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/turnsim/turnsim/harness"
)

// A broken log may end a turn in error without any step: no request was made, so normal-gives-up
// has nothing to judge, and checking it must not crash (simrun check reads such logs).
func TestNormalGivesUpReadsATurnWithoutSteps(t *testing.T) {
	r := run(t,
		harness.TurnStart{Turn: 1},
		harness.TurnEnd{Turn: 1, Reason: harness.TurnEndReason{Kind: harness.EndError, Error: &harness.Failure{Code: harness.CodeServer, Message: "down"}}},
	)
	assert.NotPanics(t, func() { Check(r) })
	assert.Zero(t, fired(r)["normal-gives-up"])
}

// retry-after-exact and normal-gives-up judge every strategy by what it states about Retry-After:
// one that states nothing is held to the strictest, exact up to its cap and giving up beyond.
func TestRetryAfterIsJudgedByTheStrategysStatement(t *testing.T) {
	exact := harness.RetryAfterUse{Within: harness.RetryAfterExact, LimitMs: 5000, GivesUpBeyond: true}
	atLeast := harness.RetryAfterUse{Within: harness.RetryAfterAtLeast, LimitMs: 5000}
	ignored := harness.RetryAfterUse{Within: harness.RetryAfterIgnored}
	cases := map[string]struct {
		use          harness.RetryAfterUse
		delay, hint  float64
		exactFires   int
		givesUpFires int
	}{
		"exact, used exactly":            {exact, 3000, 3000, 0, 0},
		"exact, clamped":                 {exact, 2000, 3000, 1, 0},
		"exact, beyond the limit":        {exact, 5000, 8000, 0, 1},
		"stated nothing, clamped to cap": {harness.RetryAfterUse{}, 4000, 4500, 1, 0},
		"stated nothing, beyond the cap": {harness.RetryAfterUse{}, 5000, 9000, 0, 1},
		"at least, rounded up":           {atLeast, 3001, 3000.5, 0, 0},
		"at least, shortened":            {atLeast, 2999, 3000, 1, 0},
		"at least, own delay beyond":     {atLeast, 100, 8000, 0, 0},
		"ignored":                        {ignored, 10, 3000, 0, 0},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := retriesRun(t, []float64{c.delay}, c.hint)
			r.Strategy = &StrategyInfo{Key: "k", Mode: harness.ModeNormal, Budget: 5, CapMs: 5000, RetryAfter: c.use}
			assert.Equal(t, c.exactFires, fired(r)["retry-after-exact"], "%v", Check(r))
			assert.Equal(t, c.givesUpFires, fired(r)["normal-gives-up"], "%v", Check(r))
		})
	}
	t.Run("always mode waits its own delay beyond the limit", func(t *testing.T) {
		r := retriesRun(t, []float64{100}, 8000)
		r.Strategy = &StrategyInfo{Key: "k", Mode: harness.ModeAlways, CapMs: 5000, RetryAfter: exact}
		assert.Zero(t, fired(r)["normal-gives-up"])
	})
}
