package harness

import "sync"

// CompactionHandler is the example downstream handler of the waterfall: it answers
// CONTEXT_WINDOW_EXCEEDED, which llm-retry never retries (re-sending the same request cannot
// help), by shrinking the conversation and asking for a retry. Its small budget is per step, so
// a request that stays too large after compaction ends the turn instead of looping.
type CompactionHandler struct {
	// BudgetPerStep is how many compactions one step may make; 0 means 1.
	BudgetPerStep int

	mu   sync.Mutex
	used map[[2]int]int
}

// HandleRequestError compacts and retries on CONTEXT_WINDOW_EXCEEDED, within budget.
func (c *CompactionHandler) HandleRequestError(req *RequestError, next func() bool) (bool, error) {
	if req.Failure.Code != CodeContextWindowExceeded {
		return next(), nil
	}
	budget := c.BudgetPerStep
	if budget <= 0 {
		budget = 1
	}
	c.mu.Lock()
	if c.used == nil {
		c.used = map[[2]int]int{}
	}
	key := [2]int{req.Turn, req.Step}
	spent := c.used[key] >= budget
	if !spent {
		c.used[key]++
	}
	c.mu.Unlock()
	if spent {
		return next(), nil
	}
	req.Conversation.Compact()
	return true, nil
}
