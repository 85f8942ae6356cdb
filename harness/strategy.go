package harness

import "sync"

// RetryStrategy is what a user implements to try a retry policy: the llm-retry plugin asks it,
// for each failure that reaches the plugin, whether to give up or how long to wait. The plugin
// keeps everything else the seed promises whatever the strategy: the chain's state is read from
// the log, llm/retry is written before the wait, the wait ends the instant the step is
// cancelled, and a normal-mode budget is enforced. The seed's RetryPolicy (normal and always
// modes) is one implementation; package harness/zoo has the published others.
type RetryStrategy interface {
	// Key names the strategy in retry chains (llm/retry's policyKey): a different strategy, or
	// different parameters, starts a new chain.
	Key() string
	// Mode is normal (a budget, recorded as maxRetries) or always (no budget; the rest of the
	// waterfall answers first, and wins if it retries).
	Mode() Mode
	// Budget is the most retries one chain may make in normal mode.
	Budget() int
	// CapMs is the longest delay the strategy promises to ask for.
	CapMs() float64
	// Decide gives up (GiveUp) or names the delay before the next attempt.
	Decide(c RetryContext) RetryDecision
}

// RetryObserver is implemented by strategies with state shared across requests (a token bucket,
// a retry quota, adaptive throttling): they are told the outcome of every attempt.
type RetryObserver interface {
	Observe(o AttemptOutcome)
}

// AttemptOutcome is one attempt's result: a success, or a failure (with the attempt's number
// within its step, from 1).
type AttemptOutcome struct {
	Success bool
	Failure Failure
	Attempt int
	AtMs    int64
}

// RetryContext is what a strategy decides from: the failure, where the chain stands (from the
// log), and the injected random source.
type RetryContext struct {
	Failure Failure
	// Retry is the number the retry would have (1 for a chain's first).
	Retry int
	// EarlierDelaysMs are the delays the chain already waited, oldest first.
	EarlierDelaysMs []float64
	// SinceFirstFailureMs is the time since the chain's first failure (0 for the first).
	SinceFirstFailureMs float64
	// Random draws a float in [0, 1) from the agent's injected source; draw only what you use,
	// so the same seed gives the same run.
	Random func() float64
}

// RetryDecision is a strategy's answer.
type RetryDecision struct {
	GiveUp  bool
	DelayMs float64
}

// GiveUp is the decision to hand the failure down the waterfall.
func GiveUp() RetryDecision { return RetryDecision{GiveUp: true} }

// Wait is the decision to retry after delayMs.
func Wait(delayMs float64) RetryDecision { return RetryDecision{DelayMs: delayMs} }

// SeedStrategy is the seed's llm-retry behaviour as a RetryStrategy: its normal and always modes,
// configured by a RetryPolicy.
type SeedStrategy struct{ Policy RetryPolicy }

var _ RetryStrategy = SeedStrategy{}

// Strategy returns the policy as a RetryStrategy.
func (p RetryPolicy) Strategy() RetryStrategy { return SeedStrategy{Policy: p} }

// defaultStrategy is the strategy of an agent given neither a policy nor a strategy:
// DefaultRetryPolicy's, made once and shared (a strategy never changes its policy, and an agent
// never hands its strategy out), its key spelled out once into the policy's Key.
var defaultStrategy = sync.OnceValue(func() RetryStrategy {
	policy := DefaultRetryPolicy()
	policy.Key = policy.PolicyKey()
	return policy.Strategy()
})

// Key is the policy's PolicyKey.
func (s SeedStrategy) Key() string { return s.Policy.PolicyKey() }

// Mode is the policy's mode.
func (s SeedStrategy) Mode() Mode { return s.Policy.Mode }

// Budget is maxRetries.
func (s SeedStrategy) Budget() int { return s.Policy.MaxRetries }

// CapMs is maxDelay.
func (s SeedStrategy) CapMs() float64 { return s.Policy.MaxDelayMs }

// Decide is the seed's recover(): normal mode gives up on a code it does not retry and on a
// provider Retry-After above maxDelay; a Retry-After at or below maxDelay is used exactly, with no
// jitter; otherwise the local delay formula applies (always mode included, for an over-cap hint).
func (s SeedStrategy) Decide(c RetryContext) RetryDecision {
	p := s.Policy
	normal := p.Mode == ModeNormal
	f := c.Failure
	if normal && !p.retryable(f.Code) {
		return GiveUp()
	}
	switch {
	case f.HasRetryAfter() && f.ProviderRetryAfterMs <= p.MaxDelayMs:
		return Wait(f.ProviderRetryAfterMs) // the provider said how long: used exactly
	case f.HasRetryAfter() && normal:
		return GiveUp() // the provider says "not now" for longer than we may wait
	}
	return Wait(LocalDelayMs(p, c.Retry, c.Random()))
}
