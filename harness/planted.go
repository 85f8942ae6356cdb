package harness

import (
	"context"
	"time"

	"github.com/turnsim/turnsim/internal/plant"
)

// The helpers below exist only to host planted bugs (package internal/plant) without cluttering
// the code they sit in. In a normal build plant.On is a constant false and each returns the
// correct value.

// plantedBudgetCut is how many retries the normal-gives-up-early bug takes off the budget.
func plantedBudgetCut() int {
	if plant.On(plant.NormalGivesUpEarly) {
		return 1
	}
	return 0
}

// plantedWait is the backoff wait for a recorded delay.
func plantedWait(delayMs float64) time.Duration {
	if plant.On(plant.RetryStartedEarly) {
		return durationMs(delayMs / 2)
	}
	return durationMs(delayMs)
}

// plantedWaitContexts are the contexts that end a backoff wait: the step's and the plugin's.
func plantedWaitContexts(step, lifetime context.Context) []context.Context {
	if plant.On(plant.WaitIgnoresCancel) {
		return []context.Context{lifetime}
	}
	return []context.Context{step, lifetime}
}

// skipDrain is the drain-skipped bug: on abort it stops waiting for started calls and gives each
// unfinished one the synthetic result, as if it had never started.
func (x *toolExecutor) skipDrain(results []*ToolResult, from, nextToCommit, nextToStart int) {
	for i := nextToCommit; i < nextToStart; i++ {
		r := results[i-from]
		if r == nil {
			synthetic := errorResult(ToolResult{Turn: x.turn, Step: x.step, CallID: x.calls[i].CallID}, abortedBeforeDispatch)
			r = &synthetic
		}
		if _, err := x.agent.session.Append(*r); err != nil {
			x.failure = err
			return
		}
	}
}

// commitAsFinished is the results-in-finish-order bug: it commits a result as soon as its call
// settles, whatever the model's order.
func (x *toolExecutor) commitAsFinished(settled toolDone) {
	if x.failure != nil {
		return
	}
	if _, err := x.agent.session.Append(settled.result); err != nil {
		x.failure = err
	}
}
