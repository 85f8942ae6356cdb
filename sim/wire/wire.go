// Package wire puts the real provider adapters on the simulator's wire: imported (for its
// effect: import _ "github.com/turnsim/turnsim/sim/wire"), it registers harness/provider/openai
// and harness/provider/anthropic with sim.RegisterWire, and a share of every run's seeds then
// sends some of its answers as HTTP and server-sent events to them (see sim's wire.go), so that
// every property judges the adapters' mapping of what providers send. It is a package, and a
// module (github.com/turnsim/turnsim/sim/wire), of its own so that importing sim pulls no provider
// SDK into a build or a module graph: simrun imports it, and so may a user's command built on
// sim/cli.
package wire

import (
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	openaioption "github.com/openai/openai-go/v3/option"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/provider/anthropic"
	"github.com/turnsim/turnsim/harness/provider/openai"
	"github.com/turnsim/turnsim/sim"
)

func init() {
	sim.RegisterWire(faults.ProtocolOpenAI, OpenAI)
	sim.RegisterWire(faults.ProtocolAnthropic, Anthropic)
}

// OpenAI builds the OpenAI adapter on the wire: its HTTP client, the harness's clock and
// runtime, the world's deadline.
func OpenAI(cfg sim.WireConfig) (harness.Provider, error) {
	return openai.New(openai.Config{
		BaseURL: cfg.BaseURL, APIKey: "sk-wire", Model: "turnsim-wire", Timeout: cfg.Timeout,
		Clock: cfg.Clock, Runtime: cfg.Runtime,
		Options: []openaioption.RequestOption{openaioption.WithHTTPClient(cfg.Client)},
	})
}

// Anthropic builds the Anthropic adapter on the wire, as OpenAI does.
func Anthropic(cfg sim.WireConfig) (harness.Provider, error) {
	return anthropic.New(anthropic.Config{
		BaseURL: cfg.BaseURL, APIKey: "sk-ant-wire", Model: "turnsim-wire", Timeout: cfg.Timeout,
		Clock: cfg.Clock, Runtime: cfg.Runtime,
		Options: []option.RequestOption{option.WithHTTPClient(cfg.Client)},
	})
}
