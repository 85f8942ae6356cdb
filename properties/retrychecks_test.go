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
