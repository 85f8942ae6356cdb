package properties

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/turnsim/turnsim/harness"
)

// retry-id-continuity follows its chains and ids in lists; on random llm/retry records (more
// chains and ids than its lists hold on the stack, ids shared and changed, counts skipped) it
// finds what its maps version found, message for message.
func TestRetryIDContinuityIsTheMapsVersion(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		small := rapid.IntRange(1, 3)
		ids := rapid.SampledFrom([]string{"r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10"})
		names := rapid.SampledFrom([]string{"p", "q", "s"})
		r := &Run{Trace: Trace{IdleAtMs: -1}}
		for i := range rapid.IntRange(0, 30).Draw(t, "retries") {
			d := harness.LlmRetry{RetryID: ids.Draw(t, "id"), Turn: small.Draw(t, "turn"), Step: small.Draw(t, "step"),
				Provider: names.Draw(t, "provider"), PolicyKey: names.Draw(t, "policy"), Retry: rapid.IntRange(0, 4).Draw(t, "retry")}
			r.Log = append(r.Log, harness.Event{Seq: int64(i + 1), Type: d.EventType(), Time: int64(i), Data: d})
		}
		require.Equal(t, violationsOf(r, checkRetryIDContinuityByMaps), violationsOf(r, checkRetryIDContinuity))
	})
}

// runOf searches the tool executions the properties once looked up in a map of them: for every
// call, on random executions (a call run twice, more executions than it searches), it finds what
// the map found.
func TestRunOfIsTheMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		small := rapid.IntRange(1, 3)
		ids := rapid.SampledFrom([]string{"call_1", "call_2", "call_3", "call_4"})
		x := &index{}
		for i := range rapid.IntRange(0, 2*runsSearchedMax).Draw(t, "tools") {
			x.run.Trace.Tools = append(x.run.Trace.Tools, ToolRun{Turn: small.Draw(t, "turn"), Step: small.Draw(t, "step"),
				CallID: ids.Draw(t, "id"), StartOrder: int64(i)})
		}
		byMap := map[callKey]ToolRun{}
		for _, r := range x.run.Trace.Tools {
			byMap[callKey{r.Turn, r.Step, r.CallID}] = r
		}
		for turn := range 4 {
			for step := range 4 {
				for _, id := range []string{"call_1", "call_2", "call_3", "call_4", "call_5"} {
					k := callKey{turn, step, id}
					want, wantOK := byMap[k]
					got, ok := x.runOf(k)
					require.Equal(t, wantOK, ok, "%v", k)
					require.Equal(t, want, got, "%v", k)
				}
			}
		}
	})
}
