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

// The world keeps an action only as the plan's own element, never a caller's copy (an
// observer's callback performs a copy, which must not be kept).
func TestPlannedActionIsThePlansOwn(t *testing.T) {
	w := &world{schedule: Schedule{Plan: faults.Plan{Actions: []faults.Action{{Kind: faults.ActSteer}, {Kind: faults.ActCrash}}}}}
	own := &w.schedule.Plan.Actions[1]
	assert.Same(t, own, w.plannedAction(2, own))
	copied := *own
	assert.Panics(t, func() { w.plannedAction(2, &copied) })
	assert.Panics(t, func() { w.plannedAction(1, own) })
}
