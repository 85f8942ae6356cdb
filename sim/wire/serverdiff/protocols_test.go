package serverdiff_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/provider/anthropic"
	"github.com/turnsim/turnsim/harness/provider/openai"
	"github.com/turnsim/turnsim/internal/faultserver"
)

// attempt reads one request to its end through p.
func attempt(t *testing.T, p harness.Provider) ([]harness.Chunk, harness.Failure) {
	ctx := context.Background()
	stream, err := p.Stream(ctx, harness.Request{Messages: []harness.Entry{{Role: harness.RoleUser, Text: "hi"}}})
	var chunks []harness.Chunk
	for err == nil {
		var c harness.Chunk
		if c, err = stream.Next(ctx); err == nil {
			chunks = append(chunks, c)
		}
	}
	if errors.Is(err, io.EOF) {
		return chunks, harness.Failure{}
	}
	f, ok := harness.FailureOf(err)
	require.True(t, ok, "%v", err)
	return chunks, f
}

// The same steps through both protocols: each adapter makes the same of them.
func TestBothProtocolsPlayTheSameSteps(t *testing.T) {
	steps := []faultserver.Step{
		{Answer: faults.Answer{Fail: &faults.Fail{Code: harness.CodeServer, Message: "Overloaded"}, Wire: &faults.Wire{InStream: true}}},
		{Answer: faults.Answer{Chunks: 1, Fail: &faults.Fail{Code: harness.CodeUnknown, Message: "x"}, Wire: &faults.Wire{FinishReason: "something_new"}}},
		{Answer: faults.Answer{Chunks: 2, Fail: &faults.Fail{Code: harness.CodeTransport, Message: "x"}, Wire: &faults.Wire{Malformed: true}}},
		{Answer: faults.Answer{Fail: &faults.Fail{Code: harness.CodeContextWindowExceeded, Message: "request too large for model context", Status: 400}}},
		{
			Answer:    faults.Answer{Calls: []faults.Call{{Name: "lookup", Outcome: faults.OutcomeOK}, {Name: "echo", Outcome: faults.OutcomeOK}, {Name: faults.UnknownTool, Outcome: faults.OutcomeOK}}, Finish: harness.FinishToolCalls, Wire: &faults.Wire{EmptyArguments: true}},
			Arguments: []string{`{"order":42}`},
		},
		{Answer: faults.Answer{Calls: []faults.Call{{Name: "lookup", Outcome: faults.OutcomeOK, ID: "toolu_01", Arguments: `{"order":7}`}}, Finish: harness.FinishToolCalls}},
	}
	for _, proto := range []string{faults.ProtocolOpenAI, faults.ProtocolAnthropic} {
		t.Run(proto, func(t *testing.T) {
			s, err := faultserver.New(faultserver.Config{Steps: steps, Scale: 0.01, Arguments: func(tool string) string { return `{"tool":"` + tool + `"}` }})
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(context.Background())
			url, stopped, err := faultserver.Listen(ctx, "127.0.0.1:0", s)
			require.NoError(t, err)
			defer func() { cancel(); <-stopped }()
			var p harness.Provider
			if proto == faults.ProtocolOpenAI {
				p, err = openai.New(openai.Config{BaseURL: url + "/v1", Model: "m", Clock: fixed{time.Now()}, Timeout: 10 * time.Second})
			} else {
				p, err = anthropic.New(anthropic.Config{BaseURL: url, Model: "m", Clock: fixed{time.Now()}, Timeout: 10 * time.Second})
			}
			require.NoError(t, err)
			_, f := attempt(t, p)
			assert.Equal(t, harness.CodeServer, f.Code, "in-stream before any chunk")
			assert.Zero(t, f.Status)
			chunks, f := attempt(t, p)
			assert.Equal(t, harness.CodeUnknown, f.Code)
			assert.Contains(t, f.Message, "something_new")
			assert.Len(t, chunks, 1)
			chunks, f = attempt(t, p)
			assert.Equal(t, harness.CodeTransport, f.Code, "a malformed event, though the finish follows it")
			assert.Len(t, chunks, 2)
			_, f = attempt(t, p)
			assert.Equal(t, harness.CodeContextWindowExceeded, f.Code)
			chunks, f = attempt(t, p)
			require.Empty(t, f.Code)
			require.Len(t, chunks, 4)
			assert.Equal(t, `{"order":42}`, chunks[0].Arguments, "the plan's arguments")
			assert.Equal(t, `{"tool":"echo"}`, chunks[1].Arguments, "the server's generator")
			assert.Equal(t, "{}", chunks[2].Arguments, "no arguments on the wire: an empty object")
			assert.True(t, strings.HasPrefix(chunks[2].CallID, "call-5-"))
			chunks, f = attempt(t, p)
			require.Empty(t, f.Code)
			require.Len(t, chunks, 2)
			assert.Equal(t, "toolu_01", chunks[0].CallID, "a call's id as a provider delivered it (a schedule derived from a log)")
			assert.Equal(t, `{"order":7}`, chunks[0].Arguments, "and its arguments")
		})
	}
}
