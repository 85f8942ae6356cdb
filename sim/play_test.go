package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/turnsim/turnsim/faults"
)

// The room the trace's sends and cancels start with counts the actions an observer takes from
// inside a callback as well as the user's own, and nothing else; the pass tells too whether the
// plan crashes, waits and races.
func TestCountActionsCountsWhatPerformRecords(t *testing.T) {
	planned := countActions([]faults.Action{
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
	})
	assert.Equal(t, plannedActions{sends: 4, cancels: 4, observers: 3, crashes: true, idleWaits: true}, planned)
	assert.Equal(t, plannedActions{sends: 1, races: true}, countActions([]faults.Action{{Kind: faults.ActSteer, Concurrent: true}}))
	assert.Zero(t, countActions(nil))
}
