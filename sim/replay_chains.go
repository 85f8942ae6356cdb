package sim

import (
	"github.com/turnsim/turnsim/harness"
)

// Retry chains in a derivation: an llm/retry names the policy its chain ran under (its policyKey
// spells the fields out), and what its decision drew from the agent's random source: a float for
// a local backoff's jitter (none when a provider Retry-After was used exactly), and 16 bytes for a
// new chain's retry id. The replay's random source gives the same, in the same order, so the
// replay's delays and ids are the incident's.

// findPolicy reads the policy from the log's first llm/retry, before anything else: a failure
// that ended a turn unretried is judged by it, however late in the log a chain names it.
func (d *deriver) findPolicy() {
	for _, e := range d.events {
		r, ok := e.Data.(harness.LlmRetry)
		if !ok {
			continue
		}
		d.policyKey = r.PolicyKey
		if r.Provider != simulatedProviderName {
			d.replay.Provider = r.Provider // the name keys chains: the replay's provider takes it
		}
		if policy, ok := harness.ParsePolicyKey(r.PolicyKey); ok {
			d.plan.Policy, d.policyKnown = policy, true
			return
		}
		d.plan.Policy.Mode = r.Mode
		d.plan.Policy.Key = r.PolicyKey
		if r.MaxRetries != nil {
			d.plan.Policy.MaxRetries = *r.MaxRetries
		}
		d.note(e.Seq, "policy %q is a user's key, which does not spell out the delays: the replay runs the spec's delays under it, and its jitter draws are left to the seed", r.PolicyKey)
		return
	}
}

// chain reads what an llm/retry says of the draws behind it.
func (d *deriver) chain(e harness.Event, r harness.LlmRetry) {
	if d.pluginEnded {
		d.restartedIdle(d.turnStart, e.Seq, "a retry after the llm-retry plugin had ended")
	}
	if r.PolicyKey != d.policyKey {
		d.note(e.Seq, "policy %q differs from the first chain's %q: the replay runs the first for every chain", r.PolicyKey, d.policyKey)
	}
	if d.step != nil {
		d.step.retries = r.Retry
	}
	draws := &d.replay.Draws[d.incarnation-1]
	f := r.Failure
	hinted := f.HasRetryAfter() && f.ProviderRetryAfterMs <= d.plan.Policy.MaxDelayMs
	if !hinted && d.policyKnown {
		u, ok := jitterDraw(d.plan.Policy, r.Retry, r.DelayMs)
		if !ok {
			d.note(e.Seq, "delay %g ms is not one the policy's formula gives retry %d: the replay draws the jitter nearest to it", r.DelayMs, r.Retry)
			u = nearestJitter(d.plan.Policy, r.Retry, r.DelayMs)
		}
		draws.Floats = append(draws.Floats, u)
	}
	if !d.retryIDs[r.RetryID] {
		d.retryIDs[r.RetryID] = true
		draws.RetryIDs = append(draws.RetryIDs, r.RetryID)
	}
}

// nearestJitter is the draw whose delay is nearest delayMs, for a delay the formula cannot give.
func nearestJitter(policy harness.RetryPolicy, retry int, delayMs float64) float64 {
	best, bestGap := 0.0, -1.0
	for i := range 1001 {
		u := min(float64(i)/1000, 1-0x1p-53)
		gap := harness.LocalDelayMs(policy, retry, u) - delayMs
		if gap < 0 {
			gap = -gap
		}
		if bestGap < 0 || gap < bestGap {
			best, bestGap = u, gap
		}
	}
	return best
}

// wouldRetry reports whether the replay's llm-retry (under the derived policy, or the default
// one the replay runs when no chain names one) retries f as the step's next retry: a failure it
// would retry that ended the turn says the plugin had ended. It asks the policy's own strategy,
// the harness's rule rather than a restatement of it (the replay derives a schedule and judges
// nothing); a user's strategy (Agent.NewStrategy) may decide otherwise, which the replay cannot
// know from the log.
func (d *deriver) wouldRetry(f harness.Failure) bool {
	strategy := d.plan.Policy.Strategy()
	retry := 1
	if d.step != nil {
		retry = d.step.retries + 1
	}
	if strategy.Mode() == harness.ModeNormal && retry > strategy.Budget() {
		return false
	}
	noJitter := func() float64 { return 0 }
	return !strategy.Decide(harness.RetryContext{Failure: f, Retry: retry, Random: noJitter}).GiveUp
}
