package harness

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJSONLinesFixedFieldOrderAndRoundTrip(t *testing.T) {
	events := logOf(
		TurnStart{Turn: 1},
		StepStart{Turn: 1, Step: 1},
		retryEvent("r1", 1),
		LlmRetryStarted{RetryID: "r1", Turn: 1, Step: 1, Retry: 1},
		AssistantMessage{Turn: 1, Step: 1, Message: AssembledMessage{Blocks: []Block{{Type: BlockText, Text: "hi"}}}, Finish: FinishCompleted},
		StepEnd{Turn: 1, Step: 1},
		TurnEnd{Turn: 1, Reason: TurnEndReason{Kind: EndAborted, Reason: &CancelCause{Kind: CauseHook, Reason: "budget"}}},
	)
	events[2].Time = 1500
	var buf bytes.Buffer
	require.NoError(t, WriteJSONL(&buf, events))
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	require.Len(t, lines, len(events))
	assert.Equal(t, `{"seq":3,"type":"llm/retry","time":1500,"data":{"retryId":"r1","turn":1,"step":1,"provider":"p","mode":"normal","policyKey":"k","retry":1,"maxRetries":2,"delayMs":500,"failure":{"code":"RATE_LIMIT","message":"429"}}}`, lines[2])
	assert.Equal(t, `{"seq":7,"type":"turn/end","time":0,"data":{"turn":1,"reason":{"kind":"aborted","reason":{"kind":"hook","reason":"budget"}}}}`, lines[6])

	back, err := ReadJSONL(&buf)
	require.NoError(t, err)
	assert.Equal(t, events, back)
	require.NoError(t, ValidateLog(back))
}

func TestReadJSONLNamesTheBadLine(t *testing.T) {
	cases := map[string]string{
		"not json":      "{\"seq\":1,\"type\":\"turn/start\",\"time\":0,\"data\":{\"turn\":1}}\n{oops\n",
		"unknown type":  "{\"seq\":1,\"type\":\"turn/start\",\"time\":0,\"data\":{\"turn\":1}}\n{\"seq\":2,\"type\":\"turn/pause\",\"time\":0,\"data\":{}}\n",
		"unknown field": "{\"seq\":1,\"type\":\"turn/start\",\"time\":0,\"data\":{\"turn\":1}}\n{\"seq\":2,\"type\":\"turn/end\",\"time\":0,\"data\":{\"turn\":1,\"why\":1}}\n",
		"missing seq":   "{\"seq\":1,\"type\":\"turn/start\",\"time\":0,\"data\":{\"turn\":1}}\n{\"type\":\"turn/end\",\"time\":0,\"data\":{}}\n",
		"blank line":    "{\"seq\":1,\"type\":\"turn/start\",\"time\":0,\"data\":{\"turn\":1}}\n\n",
	}
	for name, input := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ReadJSONL(strings.NewReader(input))
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), "line 2: "), err.Error())
		})
	}
}
