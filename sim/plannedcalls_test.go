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
	tr.askCall(string(text), &asked, &faults.Call{Name: "read", LatencyMs: 40, Outcome: faults.OutcomeOK})

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

// encodeCall writes json.Marshal's bytes, whatever the call: plain fields, every optional field,
// and strings JSON escapes (which go to Marshal itself); the call id it returns is the id given.
func TestEncodeCallIsMarshal(t *testing.T) {
	calls := []toolArguments{
		{Request: 1, Call: faults.Call{Name: "read", LatencyMs: 40, Outcome: faults.OutcomeOK}},
		{Request: 12, Call: faults.Call{Name: "write", LatencyMs: 0, Outcome: faults.OutcomePanic, IgnoreCancel: true,
			Faults: []string{faults.ToolPanic, faults.ToolIgnoresCancel}}},
		{Request: 3, Call: faults.Call{Name: faults.UnknownTool, LatencyMs: 29_999, Outcome: faults.OutcomeError, Faults: []string{faults.ToolUnknown}}},
		{Request: 4, Call: faults.Call{Name: "search", Outcome: faults.OutcomeGoexit, Faults: []string{}}, Input: "plain input"},
		{Request: 5, Call: faults.Call{Name: "lookup", LatencyMs: -1}, Input: `{"q": "<b>&</b>"}`},
		{Request: 6, Call: faults.Call{Name: "naïve\u2028tool\x01", Outcome: `o"k\`}},
		{Request: 7, Call: faults.Call{Name: "read", Faults: []string{"bad\xffutf-8"}}},
		{Request: -8, Call: faults.Call{Name: "", Outcome: ""}, Input: "{}"},
		{Request: 9, Call: faults.Call{Name: "read", Outcome: faults.OutcomeFailure, Faults: []string{faults.ToolFailure}, Wrap: []string{faults.WrapErrorf, faults.WrapJoin}}, Input: "x"},
		{Request: 10, Call: faults.Call{Name: "read", Outcome: faults.OutcomeFailure, Wrap: []string{"odd\"layer"}}},
	}
	for _, id := range []string{"call-1-1", "call-3", "call-12-345", `odd "id"`, ""} {
		for i, args := range calls {
			callID, text := encodeCall([]byte(id), args)
			args.CallID = id
			want, err := json.Marshal(args)
			require.NoError(t, err)
			assert.Equal(t, string(want), text, "call %d, id %q", i, id)
			assert.Equal(t, id, callID, "call %d", i)
		}
	}
}
