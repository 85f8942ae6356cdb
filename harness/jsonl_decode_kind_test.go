package harness

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A turn end's reason kind, decoded without a copy of the log (DecodeJSONLShared), holds none of
// the log's bytes: a sweep keeps the kinds after the run (sim's outcome kinds), and the memory a
// restart read the log from (the simulated disk's) serves the next run. Known kinds and any
// other alike, in the encoder's spelling and in another order.
func TestDecodedEndKindsKeepNoneOfTheLog(t *testing.T) {
	for _, kind := range []string{EndCompleted, EndMaxTokens, EndAborted, EndError, EndInterrupted, "stranger"} {
		line, err := EncodeEvent(Event{Seq: 1, Type: TypeTurnEnd, Data: TurnEnd{Turn: 1, Reason: TurnEndReason{Kind: kind}}})
		require.NoError(t, err)
		reordered := bytes.Replace(line, []byte(`"reason":{"kind":`), []byte(`"reason":{ "kind":`), 1)
		for _, text := range [][]byte{line, reordered} {
			data := append(bytes.Clone(text), '\n')
			events, err := DecodeJSONLShared(data)
			require.NoError(t, err)
			clear(data) // what the next run writes into the reused memory
			assert.Equal(t, kind, events[0].Data.(TurnEnd).Reason.Kind, "%s", text)
		}
	}
}
