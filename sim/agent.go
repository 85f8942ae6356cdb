package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand"

	"github.com/turnsim/turnsim/faults"
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
// State that must outlive a crash (the payment service a refund tool calls, a database, a ledger
// the agent's own property reads) belongs to the seed, not to an incarnation: make it in PerSeed,
// which is called once per seed and returns the Agent for that seed, its factories closing over
// that state. Then a property such as "never refunded twice, across crashes" can be written:
//
//	sim.Agent{PerSeed: func() sim.Agent {
//		bank := payments.NewService() // one per seed: it survives the agent's crashes
//		return sim.Agent{
//			Tools:      func(rt harness.Runtime) []harness.Tool { return refunds.Tools(rt, bank) },
//			Properties: []properties.Property{NeverRefundedTwice(bank)},
//		}
//	}}
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
	// PerSeed, if set, makes the Agent of each seed's world: it is called once per seed (and
	// once by Validate), before the seed's first incarnation, and what it returns is used for
	// that seed instead of the other fields here, which must be left zero (Aim aside). State it
	// makes and the returned factories and properties close over lives as long as the seed's
	// world, through every crash and restart of the agent, and no longer: a fresh one for each
	// seed, each run of a seed (a determinism check runs it twice, shrinking many times).
	PerSeed func() Agent
	// Aim points one of the aimed faults at every seed, on top of the seed's drawn faults, so
	// that a narrow bug of the agent is found within the default seed count: a cancel while
	// one particular tool runs, say ("cancel-during-tool:issue_refund"). faults.ParseAim reads
	// it; faults.AimsHelp lists the aims. Its actions are part of each seed's schedule (Agent.
	// Schedule), so a shrunk or saved schedule replays them.
	Aim string
}

// Schedule is the schedule seed runs with this agent: the seed's own (NewSchedule, restricted
// to allowed), with the agent's Aim pointed at it, drawn from a stream of the seed's own. The Aim
// must parse (Validate checks it).
func (a Agent) Schedule(seed int64, allowed []string) Schedule {
	s := NewSchedule(seed, allowed)
	a.aimAt(&s)
	return s
}

// runSchedule is Schedule without the Swarm (newRunSchedule), for a caller that only runs it.
func (a Agent) runSchedule(seed int64, allowed []string) Schedule {
	s := newRunSchedule(seed, allowed)
	a.aimAt(&s)
	return s
}

// aimAt points the agent's Aim, if any, at s.
func (a Agent) aimAt(s *Schedule) {
	if a.Aim == "" {
		return
	}
	aim, err := faults.ParseAim(a.Aim)
	if err != nil {
		panic(fmt.Sprintf("sim: invariant: an aim Validate refuses reached a schedule: %v", err))
	}
	aim.Apply(&s.Plan, faults.NewRand(deriveSeed(s.Seed, streamAim)))
	if s.Swarm != nil {
		s.Swarm[aim.Fault] = 1
	}
}

// Seeded is the Agent a seed runs: one PerSeed makes (a new one on every call), or a itself. A
// reader of the agent's fields (its properties, its strategy) reads them here, where a PerSeed
// agent keeps them. (Aims apply to the schedule, Agent.Schedule, not to the seed's agent.)
func (a Agent) Seeded() Agent {
	if a.PerSeed == nil {
		return a
	}
	return a.PerSeed()
}

// withEachSeed is a with f applied to the Agent each seed runs: to PerSeed's as each is made, or
// to a itself. A caller that rewrites an agent's fields (a strategy to fuzz, tools to time) goes
// through it, so that a PerSeed agent is rewritten too rather than left as it was.
func (a Agent) withEachSeed(f func(Agent) Agent) Agent {
	if perSeed := a.PerSeed; perSeed != nil {
		a.PerSeed = func() Agent { return f(perSeed()) }
		return a
	}
	return f(a)
}

// custom reports whether the agent differs from turnsim's own in anything but its properties.
func (a Agent) custom() bool {
	return a.NewStrategy != nil || a.NewHandlers != nil || a.Tools != nil || a.WrapProvider != nil || a.MaxParallelToolCalls != 0 ||
		a.PerSeed != nil || a.Aim != ""
}

// ErrConfig wraps the error of an Agent the harness refuses: see Agent.Validate.
var ErrConfig = errors.New("sim: the agent's configuration is refused")

// Validate builds the agent once, outside any schedule, and returns the harness's refusal (it
// names the field) wrapped in ErrConfig. A configuration the harness refuses is one mistake, to
// be reported once: run on every seed, it would surface as run-completes and liveness
// violations of seeds that never ran an agent.
func (a Agent) Validate() error {
	if a.Aim != "" {
		if _, err := faults.ParseAim(a.Aim); err != nil {
			return fmt.Errorf("%w: Aim: %w", ErrConfig, err)
		}
	}
	if a.PerSeed != nil {
		if a.NewStrategy != nil || a.NewHandlers != nil || a.Tools != nil || a.Arguments != nil || a.WrapProvider != nil || a.MaxParallelToolCalls != 0 || len(a.Properties) > 0 {
			return fmt.Errorf("%w: PerSeed is set: leave the other fields (but Aim) zero, PerSeed's Agent has them", ErrConfig)
		}
		seeded := a.PerSeed()
		if seeded.PerSeed != nil || seeded.Aim != "" {
			return fmt.Errorf("%w: PerSeed returned an Agent with PerSeed or Aim set: a seed's agent has neither", ErrConfig)
		}
		return seeded.Validate()
	}
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
