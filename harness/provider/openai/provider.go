// Package openai is a harness.Provider for OpenAI's Chat Completions API and any endpoint that
// speaks it (vLLM, Ollama, LiteLLM, llama.cpp's server …). It streams, assembles tool-call
// fragments into whole tool-call chunks, and reports every failure as a harness Failure. The
// SDK's own retries are off: the harness's llm-retry is the only retry layer, so one failed call
// is one request on the wire and the session log records every attempt.
package openai

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/provider/internal/callctx"
)

// Config configures the adapter. BaseURL and Model are required; the rest may be zero.
type Config struct {
	// BaseURL is the API root, e.g. https://api.openai.com/v1 or http://127.0.0.1:8080/v1.
	BaseURL string
	// APIKey is sent as a bearer token; empty sends none (a local server may need none).
	APIKey string
	Model  string
	// Timeout bounds one request, headers and whole stream (0: none). Its expiry is TIMEOUT.
	Timeout time.Duration
	// MaxTokens caps the answer (0: the endpoint's default).
	MaxTokens int64
	// System is sent first as the system message, when not empty.
	System string
	// Tools describes the harness's tools by name; a tool without an entry is offered with a
	// free-form object schema.
	Tools map[string]ToolSpec
	// Clock reads Retry-After dates; required, so that a test or simulated clock gives exact
	// delays (the harness's injected clock).
	Clock harness.Clock
	// Runtime, if set, times Timeout through it (a task that sleeps through the runtime) instead
	// of the wall clock: the harness's injected runtime, so that under the simulator's scheduler
	// a request's deadline is virtual and reproducible. Nil (production): the wall clock.
	Runtime harness.Runtime
	// Name keys the harness's retry chains; "openai" when empty.
	Name string
	// Options are extra SDK options (an HTTP client, headers), applied before the adapter's own.
	Options []option.RequestOption
}

// ToolSpec is what the model is told about one tool.
type ToolSpec struct {
	Description string
	// Parameters is the JSON schema of its arguments.
	Parameters map[string]any
}

// Provider is the adapter. Build it with New.
type Provider struct {
	cfg    Config
	client sdk.Client
	// endpoint is what a transport failure's message names: the method and the URL requested.
	endpoint string
}

// New checks cfg and builds the adapter, with the SDK's retries switched off.
func New(cfg Config) (*Provider, error) {
	switch {
	case cfg.BaseURL == "":
		return nil, errors.New("openai: config: BaseURL is required")
	case cfg.Model == "":
		return nil, errors.New("openai: config: Model is required")
	case cfg.Clock == nil:
		return nil, errors.New("openai: config: Clock is required (Retry-After dates are read against it)")
	case cfg.Timeout < 0:
		return nil, fmt.Errorf("openai: config: Timeout %v is negative", cfg.Timeout)
	case cfg.MaxTokens < 0:
		return nil, fmt.Errorf("openai: config: MaxTokens %d is negative", cfg.MaxTokens)
	}
	if cfg.Name == "" {
		cfg.Name = "openai"
	}
	opts := append([]option.RequestOption(nil), cfg.Options...)
	opts = append(opts, option.WithBaseURL(cfg.BaseURL), option.WithMaxRetries(0), option.WithAPIKey(cfg.APIKey))
	if cfg.APIKey == "" {
		opts = append(opts, option.WithHeaderDel("Authorization"))
	}
	endpoint := "POST " + strings.TrimSuffix(cfg.BaseURL, "/") + "/chat/completions"
	return &Provider{cfg: cfg, client: sdk.NewClient(opts...), endpoint: endpoint}, nil
}

// Name keys the harness's retry chains.
func (p *Provider) Name() string { return p.cfg.Name }

// Stream sends one request. A failure status comes back here; a failure inside the stream comes
// from Next.
func (p *Provider) Stream(ctx context.Context, request harness.Request) (harness.Stream, error) {
	params, err := p.params(request)
	if err != nil {
		return nil, err
	}
	call := callctx.Start(ctx, p.cfg.Timeout, p.cfg.Runtime)
	sdkStream := p.client.Chat.Completions.NewStreaming(call.Context(), params)
	if err := sdkStream.Err(); err != nil {
		_ = sdkStream.Close()
		defer call.End()
		return nil, p.classify(call, err)
	}
	return &stream{provider: p, call: call, sdk: sdkStream}, nil
}
