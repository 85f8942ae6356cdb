package weather

import (
	"context"
	"sync/atomic"

	"github.com/turnsim/turnsim/harness"
)

// Meter is provider middleware: it counts the requests the agent sends, whatever provider is
// underneath (a real one in production, turnsim's simulated one under test).
type Meter struct {
	harness.Provider
	Requests *atomic.Int64
}

// Stream implements harness.Provider.
func (m Meter) Stream(ctx context.Context, r harness.Request) (harness.Stream, error) {
	m.Requests.Add(1)
	return m.Provider.Stream(ctx, r)
}
