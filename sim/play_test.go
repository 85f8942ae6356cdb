package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/turnsim/turnsim/faults"
)

// The room the trace's sends and cancels start with counts the actions an observer takes from
// inside a callback as well as the user's own, and nothing else.
func TestRecordsPlannedCountsWhatPerformRecords(t *testing.T) {
	w := &world{schedule: Schedule{Plan: faults.Plan{Actions: []faults.Action{
		{Kind: faults.ActFollowup},
		{Kind: faults.ActSteer},
		{Kind: faults.ActInject},
		{Kind: faults.ActCancel},
		{Kind: faults.ActDispose},
		{Kind: faults.ActPluginEnd},
		{Kind: faults.ActWaitIdle},
		{Kind: faults.ActCrash},
		{Kind: faults.ActObserver, Then: faults.ActFollowup},
		{Kind: faults.ActObserver, Then: faults.ActCancel},
		{Kind: faults.ActObserver, Then: faults.ThenPanic},
	}}}}
	assert.Equal(t, 4, w.recordsPlanned(sendKind))
	assert.Equal(t, 4, w.recordsPlanned(cancelKind))
	assert.Zero(t, (&world{}).recordsPlanned(sendKind))
}
