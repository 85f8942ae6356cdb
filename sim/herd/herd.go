package herd

// The herd: many agents sharing one provider, to judge a retry policy under contention. Every
// agent is a real harness.Agent with its own session, all running on one deterministic
// scheduler, all asking one shared RetryStrategy (as a client library shares its token bucket),
// all sending to one simulated provider (herd_provider.go). The same options give the same
// result, byte for byte.

import (
	"context"
	"errors"
	"fmt"
	"math/rand"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/internal/splitmix"
	"github.com/turnsim/turnsim/sim/sched"
)

// MaxAgents bounds a herd: enough for a thundering herd, small enough to run in seconds.
const MaxAgents = 1000

// Options configure one herd.
type Options struct {
	// Agents is how many agents share the provider, 1 to MaxAgents.
	Agents int
	// Strategy is called once: its instance is shared by every agent, as a client library would
	// share its token bucket (see harness/zoo for the published ones).
	Strategy func() harness.RetryStrategy
	// Seed fixes everything drawn: the agents' jitter, their start offsets and pauses, the
	// provider's service times and latencies, the scheduler's order.
	Seed int64
	// Provider is the shared provider's model.
	Provider ProviderModel
	// RequestsPerAgent is how many followups each agent sends, one at a time, each after the
	// previous turn ended; 0 means 1.
	RequestsPerAgent int
	// StartSpreadMs staggers the herd: each agent sends its first followup at an offset drawn in
	// [0, StartSpreadMs); 0 starts them all together.
	StartSpreadMs float64
	// ThinkMs is the most an agent pauses between one turn's end and its next followup (drawn
	// in [0, ThinkMs)).
	ThinkMs float64
	// MaxVirtualMs bounds the run's virtual time; 0 means one hour. A herd still running then
	// ends with a finding (Result.Findings).
	MaxVirtualMs float64
	// MaxRequests bounds the requests the provider takes; 0 means 200 per agent, at least
	// 100,000. One more ends the run with a request-limit finding, so a policy that retries at
	// once through an endless outage stops in seconds instead of running for hours.
	MaxRequests int
	// KeepLogs keeps every agent's session log in the result.
	KeepLogs bool
}

// Bounds of a herd run, unless told otherwise: an hour of virtual time, 200 requests per agent
// (at least 100,000), and, behind them, a number of scheduling decisions.
const (
	defaultHerdMaxVirtualMs       = 3_600_000
	defaultHerdRequestsPerAgent   = 200
	defaultHerdMaxRequestsAtLeast = 100_000
	herdMaxEvents                 = 5_000_000
)

// FindingRequestLimit: a herd's provider took more than Options.MaxRequests requests.
const FindingRequestLimit = "request-limit"

// Validate refuses options a herd cannot run with, naming the field.
func (o Options) Validate() error {
	switch {
	case o.Agents < 1 || o.Agents > MaxAgents:
		return fmt.Errorf("herd: agents: %d is outside 1..%d", o.Agents, MaxAgents)
	case o.Strategy == nil:
		return errors.New("herd: strategy: none given")
	case o.RequestsPerAgent < 0:
		return fmt.Errorf("herd: requestsPerAgent: %d is negative", o.RequestsPerAgent)
	}
	for _, f := range []struct {
		field string
		v     float64
	}{{"startSpreadMs", o.StartSpreadMs}, {"thinkMs", o.ThinkMs}, {"maxVirtualMs", o.MaxVirtualMs}, {"maxRequests", float64(o.MaxRequests)}} {
		if reason := outOfRange(f.v, false); reason != "" {
			return fmt.Errorf("herd: %s: %s", f.field, reason)
		}
	}
	return o.Provider.Validate()
}

// Random streams of a herd, derived from its seed (splitmix.Derive), apart from the schedules' own.
const (
	herdStreamScheduler uint64 = 100 + iota
	herdStreamWorld
	herdStreamProvider
	herdStreamAgents = 1 << 20 // agent i's harness Random: herdStreamAgents + i
)

// herdAgent is one agent of the herd and what it was told to do.
type herdAgent struct {
	agent   *harness.Agent
	startMs float64
	thinkMs []float64 // the pause after each turn but the last
	errs    []string  // agent/error events and failed sends
	// unwound are the turns a finding cut short: the harness settles a turn whose goroutine the
	// unwinding ends (runtime.Goexit) as error, but the run was over, and the turn unfinished.
	unwound map[int]bool
}

// Run runs one herd to its end: every agent sends its followups, one turn at a time, and the
// run is over when every turn has ended (or at a bound, see MaxVirtualMs). It panics on options
// Validate refuses (check user input with Validate first) and on a strategy harness.New refuses
// (one without a key, or with a normal-mode budget below 1).
func Run(opts Options) Result {
	if err := opts.Validate(); err != nil {
		panic(err.Error())
	}
	requests := max(opts.RequestsPerAgent, 1)
	maxVirtualMs := opts.MaxVirtualMs
	if maxVirtualMs == 0 {
		maxVirtualMs = defaultHerdMaxVirtualMs
	}
	s := sched.New(sched.Options{
		Seed:           splitmix.Derive(opts.Seed, herdStreamScheduler),
		MaxVirtualTime: herdDuration(maxVirtualMs),
		MaxEvents:      herdMaxEvents,
	})
	strategy := opts.Strategy()
	maxRequests := opts.MaxRequests
	if maxRequests == 0 {
		maxRequests = max(defaultHerdMaxRequestsAtLeast, defaultHerdRequestsPerAgent*opts.Agents)
	}
	provider := newHerdProvider(opts.Provider, s, splitmix.Derive(opts.Seed, herdStreamProvider), maxRequests)
	world := rand.New(rand.NewSource(splitmix.Derive(opts.Seed, herdStreamWorld)))
	agents := make([]*herdAgent, opts.Agents)
	for i := range agents {
		h := &herdAgent{startMs: world.Float64() * opts.StartSpreadMs}
		for range requests - 1 {
			h.thinkMs = append(h.thinkMs, world.Float64()*opts.ThinkMs)
		}
		agents[i] = h
	}
	var buildErr error
	report := s.Run("herd", func() {
		for i, h := range agents {
			agent, err := harness.New(harness.Config{
				Provider:      provider,
				Runtime:       s,
				Random:        rand.New(rand.NewSource(splitmix.Derive(opts.Seed, herdStreamAgents+uint64(i)))),
				RetryStrategy: strategy,
				OnError:       func(e harness.AgentError) { h.onError(s, e) },
			})
			if err != nil {
				buildErr = err
				return
			}
			h.agent = agent
		}
		for i, h := range agents {
			s.Go(fmt.Sprintf("user %d", i), func() { h.play(s, i, requests) })
		}
	})
	if buildErr != nil {
		panic(fmt.Sprintf("herd: the strategy was refused: %v", buildErr))
	}
	return summariseHerd(opts, strategy, provider, agents, report)
}

// onError keeps an agent/error that a herd should never see: a turn that ends in a provider
// failure (the policy gave up) is expected, and counted in GaveUp; anything else is not.
func (h *herdAgent) onError(s *sched.Scheduler, e harness.AgentError) {
	if s.Unwinding() {
		if h.unwound == nil {
			h.unwound = map[int]bool{}
		}
		h.unwound[e.Turn] = true // the run is over: its turn/end, if any, is no outcome
		return
	}
	if _, provider := harness.FailureOf(e.Err); provider && e.Source == "turn" {
		return
	}
	h.errs = append(h.errs, fmt.Sprintf("agent/error turn %d (%s): %v", e.Turn, e.Source, e.Err))
}

// play is one agent's user: it waits for its start, then sends its followups one turn at a time.
func (h *herdAgent) play(s *sched.Scheduler, index, requests int) {
	if h.startMs > 0 {
		s.Sleep(herdDuration(h.startMs))
	}
	for k := range requests {
		if _, err := h.agent.Followup(fmt.Sprintf("agent %d, request %d", index, k+1)); err != nil {
			h.errs = append(h.errs, fmt.Sprintf("followup %d refused: %v", k+1, err))
			return
		}
		if err := h.agent.WhenIdle(context.Background()); err != nil {
			h.errs = append(h.errs, fmt.Sprintf("waiting for turn %d: %v", k+1, err))
			return
		}
		if k < len(h.thinkMs) && h.thinkMs[k] > 0 {
			s.Sleep(herdDuration(h.thinkMs[k]))
		}
	}
}
