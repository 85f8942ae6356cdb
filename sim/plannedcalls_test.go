package sim

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/faults"
)

// A tool takes back what the world encoded under the exact text it streamed; any other text is
// decoded (and what is not a plan call fails), as when every call was decoded.
func TestAskedCallsAreTakenBackOrDecoded(t *testing.T) {
	tr := &tracer{}
	asked := toolArguments{CallID: "call-1-1", Request: 1, Call: faults.Call{Name: "read", LatencyMs: 40, Outcome: faults.OutcomeOK}}
	text, err := json.Marshal(asked)
	require.NoError(t, err)
	tr.askCall(string(text), asked)

	got, err := tr.askedCall(string(text))
	require.NoError(t, err)
	assert.Equal(t, asked, got)

	other := toolArguments{CallID: "call-2-1", Request: 2, Call: faults.Call{Name: "write", LatencyMs: 7}}
	otherText, err := json.Marshal(other)
	require.NoError(t, err)
	got, err = tr.askedCall(string(otherText)) // never streamed: decoded
	require.NoError(t, err)
	assert.Equal(t, other, got)

	_, err = tr.askedCall(`{"callId": 3}`)
	assert.Error(t, err, "not a plan call")
}
