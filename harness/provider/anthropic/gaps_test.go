package anthropic_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/provider/anthropic"
	"github.com/turnsim/turnsim/harness/provider/internal/wiretest"
)

// A stop reason the harness has no outcome for ends the answer with an error that carries it:
// the chunks streamed before it stay streamed, the answer is no completed step.
func TestUnknownStopReasonIsAnError(t *testing.T) {
	for _, reason := range []string{"refusal", "pause_turn", "something_new"} {
		t.Run(reason, func(t *testing.T) {
			srv := wiretest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
				send := wiretest.SSE(w)
				for _, b := range append([]string{ev("message_start", start), textStart(0), text(0, "some text"), blockStop(0)}, stopWith(reason)...) {
					send(b)
				}
			})
			chunks, err := drain(context.Background(), newProvider(t, srv.URL, 5*time.Second))
			f := failureOf(t, err)
			assert.Equal(t, harness.CodeUnknown, f.Code)
			assert.Contains(t, f.Message, reason)
			assert.Len(t, chunks, 1, "the text before it was streamed")
		})
	}
}

// A transport failure's message names where the request went and reads the chain.
func TestTransportFailureNamesTheEndpoint(t *testing.T) {
	url := wiretest.RefusedURL(t)
	_, err := drain(context.Background(), newProvider(t, url, 5*time.Second))
	f := failureOf(t, err)
	assert.Equal(t, harness.CodeTransport, f.Code)
	assert.Contains(t, f.Message, "POST "+url+"/v1/messages")
	assert.Contains(t, f.Message, "refused")
}

// An in-stream error that is a context overflow, by its type or by its message.
func TestInStreamContextOverflow(t *testing.T) {
	for name, data := range map[string]string{
		"by type":    `{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}`,
		"by message": `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			srv := wiretest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
				wiretest.SSE(w)(ev("error", data))
			})
			_, err := drain(context.Background(), newProvider(t, srv.URL, 5*time.Second))
			assert.Equal(t, harness.CodeContextWindowExceeded, failureOf(t, err).Code)
		})
	}
}

// Given the harness's runtime, the request timeout is the runtime's timer: a stalled response
// ends TIMEOUT exactly when it runs out (in a synctest bubble, whose clock the runtime reads).
func TestRuntimeTimesTheRequestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, err := anthropic.New(anthropic.Config{
			BaseURL: "http://provider.test", Model: "m", Clock: wiretest.FixedClock{}, Timeout: 30 * time.Second,
			Runtime: harness.NewProductionRuntime(nil),
			Options: []option.RequestOption{option.WithHTTPClient(&http.Client{Transport: wiretest.InMemory{Status: 200, Stall: true}})},
		})
		require.NoError(t, err)
		begin := time.Now()
		_, err = drain(context.Background(), p)
		f := failureOf(t, err)
		assert.Equal(t, harness.CodeTimeout, f.Code)
		assert.Equal(t, 30*time.Second, time.Since(begin))
		assert.Contains(t, f.Message, "POST http://provider.test/v1/messages timed out")
	})
}
