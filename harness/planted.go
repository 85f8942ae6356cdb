package harness

import (
	"context"
	"time"

	"github.com/turnsim/turnsim/internal/plant"
)

// The helpers below exist only to host planted bugs (package internal/plant) without cluttering
// the code they sit in. In a normal build plant.On is a constant false and each returns the
// correct value.

// plantedBudgetCut is how many retries the normal-gives-up-early bug takes off the budget (and
// the budget-off-by-one bug adds to it).
func plantedBudgetCut() int {
	switch {
	case plant.On(plant.NormalGivesUpEarly):
		return 1
	case plant.On(plant.BudgetOffByOne):
		return -1
	}
	return 0
}

// plantedToolContext is the context a tool call runs under: the step's.
func plantedToolContext(step context.Context) context.Context {
	if plant.On(plant.ToolsGetBackground) {
		return context.Background()
	}
	return step
}

// plantedCounterKey is what the retry-counter-in-memory bug counts by.
type plantedCounterKey struct {
	chain ChainKey
	code  string
}

// plantedRetryNumber is the number of the retry about to be made: the log's, or, under the
// retry-counter-in-memory bug, a count kept in memory per failure code.
func (p *llmRetry) plantedRetryNumber(key ChainKey, code string, fromLog int) int {
	if !plant.On(plant.RetryCounterInMemory) {
		return fromLog
	}
	if p.memory == nil {
		p.memory = map[plantedCounterKey]int{}
	}
	p.memory[plantedCounterKey{key, code}]++
	return p.memory[plantedCounterKey{key, code}]
}

// plantedIgnoresBudget is the budget-ignored bug: with the budget spent, a failure the seed's
// policy would retry is retried anyway, with no record.
func plantedIgnoresBudget(s RetryStrategy, f Failure) bool {
	seed, ok := s.(SeedStrategy)
	return plant.On(plant.BudgetIgnored) && ok && seed.Policy.retryable(f.Code)
}

// plantedRepairKind is how crash repair closes the open turn.
func plantedRepairKind() string {
	if plant.On(plant.RepairCompletesTurn) {
		return EndCompleted
	}
	return EndInterrupted
}

// plantedRedispatch is the redispatch-after-restart bug: the calls crash repair gave an unknown
// outcome, to be run again by the first step after the restart.
func (a *Agent) plantedRedispatch(repair []EventData) {
	if !plant.On(plant.RedispatchAfterRestart) {
		return
	}
	for _, data := range repair {
		if r, ok := data.(ToolResult); ok && r.Error != nil && r.Error.Code == CodeToolOutcomeUnknown {
			for _, e := range a.session.Events() {
				if c, ok := e.Data.(ToolCall); ok && c.CallID == r.CallID && c.Turn == r.Turn && c.Step == r.Step {
					a.redispatch = append(a.redispatch, Block{Type: BlockToolCall, CallID: c.CallID, Name: c.Name, Arguments: c.Arguments})
				}
			}
		}
	}
}

// runPlantedRedispatch runs the calls plantedRedispatch kept, in the current step.
func (a *Agent) runPlantedRedispatch(ctx context.Context, turn, step int) error {
	if len(a.redispatch) == 0 {
		return nil
	}
	calls := a.redispatch
	a.redispatch = nil
	return a.executeToolCalls(ctx, turn, step, calls)
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

// plantedRerun is the failed-turn-rerun bug: a turn that failed before taking any message is run
// once more at once (once only, so the planted run stays finite).
func plantedRerun(reran *bool) bool {
	if !plant.On(plant.FailedTurnRerun) || *reran {
		return false
	}
	*reran = true
	return true
}
