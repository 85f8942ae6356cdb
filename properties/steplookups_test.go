package properties

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/turnsim/turnsim/harness"
)

// A step's lookups by call id scan its results and its answer's blocks; they answer what the
// maps they replaced, filled in log order, did: ids repeat, results may be synthetic or not, and
// an answer's blocks mix text and tool calls.
func TestStepLookupsAreTheMaps(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ids := rapid.SampledFrom([]string{"call_1", "call_2", "call_3"})
		s := &stepIndex{message: &harness.AssistantMessage{}}
		for i := range rapid.IntRange(0, 8).Draw(t, "results") {
			r := harness.ToolResult{CallID: ids.Draw(t, "id"), Content: "r"}
			if rapid.Bool().Draw(t, "synthetic") {
				r.Error = &harness.ToolError{Code: harness.CodeToolAbortedBeforeDispatch}
			}
			s.results = append(s.results, eventAt[harness.ToolResult]{int64(i + 1), int64(i), r})
		}
		for range rapid.IntRange(0, 6).Draw(t, "blocks") {
			b := harness.Block{Type: harness.BlockText, Text: "t"}
			if rapid.Bool().Draw(t, "call") {
				b = harness.Block{Type: harness.BlockToolCall, CallID: ids.Draw(t, "id")}
			}
			s.message.Message.Blocks = append(s.message.Message.Blocks, b)
		}
		last, count, synthetic := map[string]eventAt[harness.ToolResult]{}, map[string]int{}, map[string]bool{}
		for _, r := range s.results {
			last[r.data.CallID] = r
			count[r.data.CallID]++
			if isSynthetic(r.data) {
				synthetic[r.data.CallID] = true
			}
		}
		order := map[string]int{}
		for i, b := range s.message.Message.ToolCalls() {
			order[b.CallID] = i
		}
		for _, id := range []string{"call_1", "call_2", "call_3", "call_4"} {
			want, wantOK := last[id]
			got, ok := s.resultFor(id)
			require.Equal(t, wantOK, ok, id)
			require.Equal(t, want, got, id)
			require.Equal(t, count[id], s.resultCount(id), id)
			require.Equal(t, synthetic[id], s.syntheticFor(id), id)
			wantPosition, wantOK := order[id]
			position, ok := callPosition(s.message, id)
			require.Equal(t, wantOK, ok, id)
			if ok {
				require.Equal(t, wantPosition, position, id)
			}
		}
	})
}

// drainedCode is the table drain-real-results once built for every call.
func TestDrainedCodeIsTheTable(t *testing.T) {
	table := map[string]string{"ok": "", "error": harness.CodeToolError, "panic": harness.CodeToolPanic, "goexit": harness.CodeToolPanic, "cancelled": harness.CodeToolError, "killed": harness.CodeToolOutcomeUnknown}
	for _, outcome := range []string{"ok", "error", "panic", "goexit", "cancelled", "killed", "", "other"} {
		require.Equal(t, table[outcome], drainedCode(outcome), outcome)
	}
}
