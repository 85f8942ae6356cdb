package harness

import (
	"errors"
	"math"
	"time"

	"github.com/google/uuid"
)

// errPluginDisposed is the cause of the llm-retry plugin's lifetime ending.
var errPluginDisposed = errors.New("harness: llm-retry plugin disposed")

// llmRetry is the llm-retry plugin: the first handler of the waterfall. It keeps no counter of
// its own: where a chain stands is read from the session log, so a restart, a second plugin
// instance or a crash can never reset a budget.
type llmRetry struct {
	strategy  RetryStrategy
	policyKey string
	session   *Session
	rt        Runtime // waits go through it (named rt: it is the injected runtime, not the time package)
	// random is the agent's locked source, for jitter and retry ids.
	random   *lockedRandom
	lifetime pluginLifetime
}

// init readies the plugin in place, in its agent (Agent.retryPlugin).
func (p *llmRetry) init(strategy RetryStrategy, session *Session, runtime Runtime, random *lockedRandom) {
	p.strategy, p.policyKey = strategy, strategy.Key()
	p.session, p.rt, p.random = session, runtime, random
}

// preemptionPoint marks site as a preemption point (see Preempter), when the runtime has them: a
// dispose may land here, before the plugin looks at its lifetime. (Only a failed attempt comes
// here, so the runtime is asked each time rather than kept twice, as the agent keeps it.)
func (p *llmRetry) preemptionPoint(site string) {
	if preempter, ok := p.rt.(Preempter); ok {
		preempter.Preempt(site)
	}
}

// observe tells a strategy with shared state how an attempt went, stamped with the runtime's
// clock (read only for a strategy that observes: most do not).
func (p *llmRetry) observe(o AttemptOutcome) {
	if observer, ok := p.strategy.(RetryObserver); ok {
		o.AtMs = p.rt.Clock().Now().UnixMilli()
		observer.Observe(o)
	}
}

// dispose ends the plugin's lifetime: a wait in progress ends at once with no retry, and later
// failures pass straight down the waterfall.
func (p *llmRetry) dispose() { p.lifetime.finish() }

// HandleRequestError decides whether to retry, following the seed's recover(): the strategy
// decides (normal mode: give up on a code it does not retry, on a spent budget, on an over-cap
// Retry-After); always mode asks next() first and retries itself when nobody downstream did.
func (p *llmRetry) HandleRequestError(req *RequestError, next func() bool) (bool, error) {
	p.preemptionPoint("llm-retry: before disposed check")
	if p.lifetime.over() {
		return next(), nil
	}
	// From here the plugin is handling this failure: if it is disposed meanwhile, nothing more
	// comes of it, not even a retry a downstream handler returns after the disposal.
	next = p.unlessDisposed(next)
	normal := p.strategy.Mode() == ModeNormal
	failure := req.Failure
	if !normal && next() {
		return true, nil // a downstream retry wins at once: no llm/retry, no delay
	}
	key := ChainKey{Turn: req.Turn, Step: req.Step, Provider: req.Provider, PolicyKey: p.policyKey}
	chain, continuing := p.session.Chain(key)
	retry := chain.Retry + 1
	if normal && retry > p.strategy.Budget() {
		return next(), nil
	}
	sinceFirst := 0.0
	if continuing {
		sinceFirst = float64(p.rt.Clock().Now().UnixMilli() - chain.FirstMs)
	}
	decision := p.strategy.Decide(RetryContext{
		Failure: failure, Retry: retry, EarlierDelaysMs: chain.DelaysMs, SinceFirstFailureMs: sinceFirst, Random: p.random.Float64,
	})
	if decision.GiveUp {
		return next(), nil
	}
	delayMs := decision.DelayMs
	retryID := chain.RetryID
	if !continuing {
		id, err := uuid.NewRandomFromReader(p.random)
		if err != nil {
			return false, err
		}
		retryID = id.String()
	}
	record := LlmRetry{
		RetryID:   retryID,
		Turn:      req.Turn,
		Step:      req.Step,
		Provider:  req.Provider,
		Mode:      p.strategy.Mode(),
		PolicyKey: p.policyKey,
		Retry:     retry,
		DelayMs:   delayMs,
		Failure:   failure,
	}
	if normal {
		budget := p.strategy.Budget()
		record.MaxRetries = &budget
	}
	// The handlers below may have taken their time (always mode asks them first): a cancel or a
	// disposal meanwhile ends the chain here, before anything is written.
	p.preemptionPoint("llm-retry: before check ahead of its record")
	if req.Ctx.Err() != nil || p.lifetime.over() {
		return false, nil
	}
	// Durable before wait: a crash during the wait leaves llm/retry without its
	// llm/retry-started, so a restart knows this retry was spent.
	if _, err := p.session.Append(record); err != nil {
		return false, err
	}
	// A disposal between the check above and the wait ends the wait at once: the lifetime's
	// context is made cancelled when the lifetime ended before it.
	p.preemptionPoint("llm-retry: before arming the wait")
	if err := p.rt.Sleep(durationMs(delayMs), req.Ctx, p.lifetime.context()); err != nil {
		return false, nil
	}
	// A cancel or a disposal in the instant the wait ran out beats the retry.
	p.preemptionPoint("llm-retry: after the wait, before check")
	if req.Ctx.Err() != nil || p.lifetime.over() {
		return false, nil
	}
	started := LlmRetryStarted{RetryID: retryID, Turn: req.Turn, Step: req.Step, Retry: retry}
	if _, err := p.session.Append(started); err != nil {
		return false, err
	}
	return true, nil
}

// unlessDisposed wraps the waterfall's next: a retry the handlers below return once the plugin's
// lifetime has ended is dropped (the failure is terminal), so disposal ends the chain however
// long a downstream handler takes to decide.
func (p *llmRetry) unlessDisposed(next func() bool) func() bool {
	return func() bool {
		retry := next()
		p.preemptionPoint("llm-retry: after downstream, before disposed check")
		if p.lifetime.over() {
			return false
		}
		return retry
	}
}

// durationMs converts milliseconds to a Duration, rounding to the nearest nanosecond.
func durationMs(ms float64) time.Duration {
	return time.Duration(math.Round(ms * float64(time.Millisecond)))
}
