// Package anthropic is a harness.Provider for Anthropic's Messages API. It streams, assembles
// tool_use blocks (their input arrives as JSON fragments) into whole tool-call chunks, and
// reports every failure as a harness Failure, including the in-stream "overloaded" error event
// and 529. The SDK's own retries are off: the harness's llm-retry is the only retry layer.
package anthropic

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/provider/internal/callctx"
)

// DefaultMaxTokens is the answer cap when Config.MaxTokens is 0: the API requires one.
const DefaultMaxTokens = 4096

// Config configures the adapter. BaseURL and Model are required; the rest may be zero. Nothing
// is read from the environment behind the caller's back (the SDK's env defaults are off).
type Config struct {
	// BaseURL is the API root, e.g. https://api.anthropic.com or http://127.0.0.1:8080.
	BaseURL string
	APIKey  string
	Model   string
	// Timeout bounds one request, headers and whole stream (0: none). Its expiry is TIMEOUT.
	Timeout   time.Duration
	MaxTokens int64
	System    string
	// Tools describes the harness's tools by name; a tool without an entry is offered with a
	// free-form object schema.
	Tools map[string]ToolSpec
	// Clock reads Retry-After dates: the harness's injected clock.
	Clock harness.Clock
	// Runtime, if set, times Timeout through it (a task that sleeps through the runtime) instead
	// of the wall clock: the harness's injected runtime, so that under the simulator's scheduler
	// a request's deadline is virtual and reproducible. Nil (production): the wall clock.
	Runtime harness.Runtime
	// Name keys the harness's retry chains; "anthropic" when empty.
	Name    string
	Options []option.RequestOption
}

// ToolSpec is what the model is told about one tool.
type ToolSpec struct {
	Description string
	// Properties and Required are the input schema's (an object).
	Properties map[string]any
	Required   []string
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
		return nil, errors.New("anthropic: config: BaseURL is required")
	case cfg.Model == "":
		return nil, errors.New("anthropic: config: Model is required")
	case cfg.Clock == nil:
		return nil, errors.New("anthropic: config: Clock is required (Retry-After dates are read against it)")
	case cfg.Timeout < 0:
		return nil, fmt.Errorf("anthropic: config: Timeout %v is negative", cfg.Timeout)
	case cfg.MaxTokens < 0:
		return nil, fmt.Errorf("anthropic: config: MaxTokens %d is negative", cfg.MaxTokens)
	}
	if cfg.Name == "" {
		cfg.Name = "anthropic"
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	opts := []option.RequestOption{option.WithoutEnvironmentDefaults()}
	opts = append(opts, cfg.Options...)
	opts = append(opts, option.WithBaseURL(cfg.BaseURL), option.WithMaxRetries(0))
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	endpoint := "POST " + strings.TrimSuffix(cfg.BaseURL, "/") + "/v1/messages"
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
	sdkStream := p.client.Messages.NewStreaming(call.Context(), params)
	if err := sdkStream.Err(); err != nil {
		_ = sdkStream.Close()
		defer call.End()
		return nil, p.classify(call, err)
	}
	return &stream{provider: p, call: call, sdk: sdkStream}, nil
}
