package sim

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The incident kept from a production log (docs/replay.md) still catches the defect that wrote
// it: with exponent-off-by-one planted, its schedule breaks delay-in-window. (On the fixed harness
// it replays clean: TestCorpusReplaysClean.)
func TestMutantExponentOffByOneBreaksTheChatIncident(t *testing.T) {
	requireMutant(t, "exponent-off-by-one")
	data, err := os.ReadFile(corpusDir + "/delay-in-window-chat-incident.json")
	require.NoError(t, err)
	schedule, _, err := LoadSchedule(data)
	require.NoError(t, err)
	assert.True(t, hasViolation(RunSchedule(schedule).Violations, "delay-in-window"))
}
