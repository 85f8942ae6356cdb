package weather

import (
	"sync"

	"github.com/turnsim/turnsim/harness"
)

// FallbackHandler follows llm-retry in the request-error waterfall: when llm-retry has given up
// on a server failure (its budget spent), it re-sends the step's request once more, on the
// fallback model, before the turn fails. One fallback per step, so a dead service still ends
// the turn.
type FallbackHandler struct {
	mu   sync.Mutex
	used map[[2]int]bool
	// Fallbacks counts the re-sends, for the agent's metrics.
	Fallbacks int
}

// HandleRequestError implements harness.RequestErrorHandler.
func (h *FallbackHandler) HandleRequestError(req *harness.RequestError, next func() bool) (bool, error) {
	if next() {
		return true, nil // a handler below chose to retry
	}
	if req.Failure.Code != harness.CodeServer && req.Failure.Code != harness.CodeTimeout {
		return false, nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	key := [2]int{req.Turn, req.Step}
	if h.used == nil {
		h.used = map[[2]int]bool{}
	}
	if h.used[key] {
		return false, nil
	}
	h.used[key] = true
	h.Fallbacks++
	return true, nil
}
