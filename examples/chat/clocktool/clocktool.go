// Package clocktool is examples/chat's one tool, shared by chat (the production agent) and chatsim
// (the same agent under the simulator), so that a replayed chat session runs the very tool the
// incident ran.
package clocktool

import (
	"context"
	"time"

	"github.com/turnsim/turnsim/harness"
)

// Doc is the tool's description, as a provider is told it.
const Doc = "Returns the current time in UTC (RFC 3339), to the minute."

// Tool is the clock tool: the time on clk, in UTC, to the minute. To the minute, not the second:
// a replay runs the tool at the instant its tool/call was logged, while the production tool read
// its clock a moment later; at whole seconds that moment crossed a second boundary about once in
// a few hundred runs and the replayed result differed, at whole minutes sixty times less often.
func Tool(clk harness.Clock) harness.Tool {
	return harness.Tool{Name: "clock", Parallel: true, Run: func(ctx context.Context, arguments string) (string, error) {
		return clk.Now().UTC().Truncate(time.Minute).Format(time.RFC3339), nil
	}}
}
