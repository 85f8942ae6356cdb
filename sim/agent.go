package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
)

// Agent is the user's part of harness.Config: what makes their agent theirs. The world keeps
// everything it must own to make a run reproducible and faulty on purpose (the runtime, the
// random source, the clock, the session store, the simulated provider underneath) and still
// draws every fault from the seed; the Agent says what runs inside it. The zero Agent is
// turnsim's own simulated agent: the seed's retry policy, its compaction handler, its tools.
//
// Every field that makes something is a factory, called once per agent incarnation (a crash
// restarts the agent) and from several workers at once: it must return fresh state each time
// and share nothing mutable between calls, or two seeds would see each other.
//
// What a factory is handed (the runtime, the simulated provider and the errors it returns) serves
// one run only: a sweep hands the same memory to its next seed, so nothing may keep it past the
// run it was made for.
type Agent struct {
	// NewStrategy makes the retry strategy (Config.RetryStrategy); nil: the seed's policy.
	NewStrategy func() harness.RetryStrategy
	// NewHandlers makes the request-error handlers that follow llm-retry (Config.Handlers),
	// given the runtime to wait through; nil: the seed's compaction handler, if it draws one.
	// A *harness.CompactionHandler among them is recognised, and its budget judged.
	NewHandlers func(rt harness.Runtime) []harness.RequestErrorHandler
	// Tools makes the tools (Config.Tools), given the runtime they must wait through: a tool
	// never sleeps with time.Sleep or waits on a timer of its own, but calls rt.Sleep(d, ctx),
	// so that its time is virtual and honours the step's cancellation (a tool that runs on past
	// its step's cancellation is reported by tool-context-cancelled). nil: turnsim's simulated
	// tools. The world wraps each tool with the seed's tool faults, and the simulated provider
	// calls these names.
	Tools func(rt harness.Runtime) []harness.Tool
	// Arguments makes the arguments of a call to the named tool from the seed's random source;
	// nil (or "" returned): "{}".
	Arguments func(tool string, r *rand.Rand) string
	// WrapProvider wraps the simulated provider in the user's middleware (Config.Provider is
	// then WrapProvider(simulated)); nil: the simulated provider itself.
	WrapProvider func(harness.Provider) harness.Provider
	// MaxParallelToolCalls is the pool limit (Config.MaxParallelToolCalls); 0: the seed's.
	MaxParallelToolCalls int
	// Properties are checked after every run, after the catalogue (see properties.Define).
	Properties []properties.Property
}

// custom reports whether the agent differs from turnsim's own in anything but its properties.
func (a Agent) custom() bool {
	return a.NewStrategy != nil || a.NewHandlers != nil || a.Tools != nil || a.WrapProvider != nil || a.MaxParallelToolCalls != 0
}

// ErrConfig wraps the error of an Agent the harness refuses: see Agent.Validate.
var ErrConfig = errors.New("sim: the agent's configuration is refused")

// Validate builds the agent once, outside any schedule, and returns the harness's refusal (it
// names the field) wrapped in ErrConfig. A configuration the harness refuses is one mistake, to
// be reported once: run on every seed, it would surface as run-completes and liveness
// violations of seeds that never ran an agent.
func (a Agent) Validate() error {
	if a.MaxParallelToolCalls < 0 {
		return fmt.Errorf("%w: MaxParallelToolCalls is %d, below 0", ErrConfig, a.MaxParallelToolCalls)
	}
	seen := map[string]bool{}
	for _, p := range a.Properties {
		if p.Name == "" || seen[p.Name] {
			return fmt.Errorf("%w: Properties: %q is empty or given twice", ErrConfig, p.Name)
		}
		seen[p.Name] = true
	}
	rt := harness.NewProductionRuntime(nil)
	cfg := harness.Config{Provider: validationProvider{}, Runtime: rt, Random: rand.New(rand.NewSource(1)), MaxParallelToolCalls: a.MaxParallelToolCalls}
	if a.NewStrategy != nil {
		if cfg.RetryStrategy = a.NewStrategy(); cfg.RetryStrategy == nil {
			return fmt.Errorf("%w: NewStrategy returned nil", ErrConfig)
		}
	}
	if a.NewHandlers != nil {
		cfg.Handlers = a.NewHandlers(rt)
	}
	if a.Tools != nil {
		if cfg.Tools = a.Tools(rt); len(cfg.Tools) == 0 {
			return fmt.Errorf("%w: Tools returned no tool (leave Tools nil for turnsim's own)", ErrConfig)
		}
	}
	agent, err := harness.New(cfg)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	agent.Dispose()
	return nil
}

// validationProvider is the provider of the agent Validate builds: it is never asked.
type validationProvider struct{}

func (validationProvider) Name() string { return "validation" }

func (validationProvider) Stream(context.Context, harness.Request) (harness.Stream, error) {
	return nil, errors.New("sim: the validation agent never streams")
}
