package properties

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/turnsim/turnsim/harness"
)

// The log read back at the end of a run must hold every event the session took in: one missing
// (a line the store acknowledged but never made durable) or a log that does not reopen is a loss.
func TestNoAcknowledgedLossReadsTheLogReopenedAtTheEnd(t *testing.T) {
	settled := []harness.EventData{
		harness.TurnStart{Turn: 1},
		harness.TurnEnd{Turn: 1, Reason: harness.TurnEndReason{Kind: harness.EndCompleted}},
	}
	whole := run(t, settled...)
	whole.Trace.Reopened = &Reopened{Events: whole.Log}
	assert.Zero(t, fired(whole)["no-acknowledged-loss"])

	short := run(t, settled...)
	short.Trace.Reopened = &Reopened{Events: short.Log[:1], Torn: true}
	violations := Check(short)
	assert.Equal(t, 1, fired(short)["no-acknowledged-loss"])
	for _, v := range violations {
		if v.Property == "no-acknowledged-loss" {
			assert.Contains(t, v.Message, "event 2 (turn/end) was acknowledged, but the durable log reopened at the end of the run does not hold it")
		}
	}

	unreadable := run(t, settled...)
	unreadable.Trace.Reopened = &Reopened{Err: "filestore: session.jsonl:1: invalid character"}
	assert.Equal(t, 1, fired(unreadable)["no-acknowledged-loss"])
}
