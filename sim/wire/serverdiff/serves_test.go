package serverdiff_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/provider/openai"
	"github.com/turnsim/turnsim/internal/faultserver"
)

type fixed struct{ t time.Time }

func (f fixed) Now() time.Time { return f.t }

func TestServesInRequestOrderWithinItsBounds(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	rate := func(form string) faultserver.Step {
		return faultserver.Step{Answer: faults.Answer{Fail: &faults.Fail{Code: harness.CodeRateLimit, Message: "slow down", Status: 429, RetryAfterMs: 3000}, Wire: &faults.Wire{RetryAfter: form}}}
	}
	s, err := faultserver.New(faultserver.Config{
		Steps: []faultserver.Step{
			rate(faults.RetryAfterMs), rate(faults.RetryAfterSeconds), rate(faults.RetryAfterDate),
			{Answer: faults.Answer{Fail: &faults.Fail{Code: harness.CodeServer, Message: "overloaded", Status: 529}}},
			{Answer: faults.Answer{Chunks: 2, ChunkDelayMs: 1, Fail: &faults.Fail{Code: harness.CodeTransport, Message: "malformed"}, Wire: &faults.Wire{Malformed: true}}},
			{Answer: faults.Answer{Chunks: 1, Calls: []faults.Call{{Name: "read", Outcome: faults.OutcomeOK}}, Finish: harness.FinishToolCalls}},
			{Answer: faults.Answer{Chunks: 1, Finish: harness.FinishMaxTokens}},
		},
		MaxRequests: 8,
		Now:         func() time.Time { return now },
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	url, stopped, err := faultserver.Listen(ctx, "127.0.0.1:0", s)
	require.NoError(t, err)
	defer func() { cancel(); <-stopped }()
	require.True(t, strings.HasPrefix(url, "http://127.0.0.1:"))

	p, err := openai.New(openai.Config{BaseURL: url + "/v1", Model: "m", Clock: fixed{now}, Timeout: 10 * time.Second})
	require.NoError(t, err)
	for _, form := range []string{"ms", "seconds", "date"} {
		_, f := attempt(t, p)
		assert.Equal(t, harness.CodeRateLimit, f.Code, form)
		assert.Equal(t, 3000.0, f.ProviderRetryAfterMs, form)
	}
	_, f := attempt(t, p)
	assert.Equal(t, harness.Failure{Code: harness.CodeServer, Status: 529, RequestID: "req-4"}, harness.Failure{Code: f.Code, Status: f.Status, RequestID: f.RequestID})
	chunks, f := attempt(t, p)
	assert.Equal(t, harness.CodeTransport, f.Code, "a malformed event")
	assert.Len(t, chunks, 2)
	chunks, f = attempt(t, p)
	require.Empty(t, f.Code)
	require.Len(t, chunks, 3)
	assert.Equal(t, "call-6-1", chunks[1].CallID)
	assert.Equal(t, harness.FinishToolCalls, chunks[2].Finish)
	chunks, _ = attempt(t, p)
	assert.Equal(t, harness.FinishMaxTokens, chunks[len(chunks)-1].Finish)
	_, f = attempt(t, p)
	assert.Empty(t, f.Code, "past the plan: the clean answer")
	_, f = attempt(t, p)
	assert.Equal(t, 503, f.Status, "past MaxRequests: refused")
	assert.Equal(t, 9, s.Served())

	resp, err := http.Get(url + "/v1/other")
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}
