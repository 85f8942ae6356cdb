package harness

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nilThenText is a provider whose first Stream returns neither a stream nor an error, as a buggy
// adapter or a user's fake does, and whose later ones answer with text.
type nilThenText struct {
	mu    sync.Mutex
	calls int
}

func (*nilThenText) Name() string { return "nil-then-text" }

func (p *nilThenText) Stream(context.Context, Request) (Stream, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	if p.calls == 1 {
		return nil, nil
	}
	return &chunks{list: []Chunk{{Kind: ChunkText, Text: "hello back"}, {Kind: ChunkFinish, Finish: FinishCompleted}}}, nil
}

// A provider that returns neither a stream nor an error fails the request (UNKNOWN, not retried
// by the default policy): the turn ends in error, the agent goes idle and serves the next
// message. Before, the turn loop called Next on the nil stream: the nil-pointer panic, re-raised
// once the turn was settled, took the program down.
func TestNilStreamIsAnUnknownFailure(t *testing.T) {
	a, err := New(Config{Provider: &nilThenText{}})
	require.NoError(t, err)
	for _, m := range []string{"hello", "again"} {
		_, err = a.Followup(m)
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		require.NoError(t, a.WhenIdle(ctx), "the agent goes idle after %q", m)
		cancel()
	}
	events := a.Session().Events()
	require.NoError(t, ValidateLog(events))
	var ends []TurnEnd
	for _, e := range events {
		if end, ok := e.Data.(TurnEnd); ok {
			ends = append(ends, end)
		}
	}
	require.Len(t, ends, 2)
	assert.Equal(t, 1, ends[0].Turn)
	assert.Equal(t, EndError, ends[0].Reason.Kind)
	require.NotNil(t, ends[0].Reason.Error)
	assert.Equal(t, CodeUnknown, ends[0].Reason.Error.Code)
	assert.Contains(t, ends[0].Reason.Error.Message, "neither a stream nor an error")
	assert.Equal(t, 2, ends[1].Turn)
	assert.Equal(t, EndCompleted, ends[1].Reason.Kind)
}
