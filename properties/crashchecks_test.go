package properties

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
)

// When the run is over, the synced bytes must hold every line of the session's log, as written:
// a line the store acknowledged but never synced, or one its torn cut damaged, is a loss.
func TestNoAcknowledgedLossReadsTheSyncedLogAtTheEnd(t *testing.T) {
	settled := []harness.EventData{
		harness.TurnStart{Turn: 1},
		harness.TurnEnd{Turn: 1, Reason: harness.TurnEndReason{Kind: harness.EndCompleted}},
	}
	whole := run(t, settled...)
	whole.Trace.DurableAtEnd = append(bytes.Clone(whole.JSONL), `{"seq":3,"type":"turn/st`...) // more is fine: never acknowledged
	assert.Zero(t, fired(whole)["no-acknowledged-loss"])

	jsonl := bytes.Clone(whole.JSONL)
	firstLine := bytes.Clone(jsonl[:bytes.IndexByte(jsonl, '\n')+1])
	for name, durable := range map[string][]byte{
		"the last line not synced":  firstLine,
		"the last line torn":        jsonl[:len(jsonl)-2],
		"the last line glued to it": append(bytes.Clone(firstLine[:len(firstLine)-1]), jsonl[len(firstLine):]...),
	} {
		t.Run(name, func(t *testing.T) {
			r := run(t, settled...)
			r.Trace.DurableAtEnd = durable
			require.Equal(t, 1, fired(r)["no-acknowledged-loss"])
			for _, v := range Check(r) {
				if v.Property == "no-acknowledged-loss" {
					assert.Contains(t, v.Message, "was acknowledged, but at the end of the run the durable log does not hold it as written")
				}
			}
		})
	}
}
