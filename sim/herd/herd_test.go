package herd

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/turnsim/turnsim/sim/sched"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/zoo"
)

// zooStrategy returns a Strategy for Options: the named zoo strategy with params.
func zooStrategy(t testing.TB, name, params string) func() harness.RetryStrategy {
	t.Helper()
	var raw json.RawMessage
	if params != "" {
		raw = json.RawMessage(params)
	}
	_, err := zoo.New(name, raw)
	require.NoError(t, err)
	return func() harness.RetryStrategy {
		s, _ := zoo.New(name, raw)
		return s
	}
}

// herdLogsKeepTheProperties checks, on every agent's log, what every policy must keep: the
// invariant layer accepts the log; each llm/retry's delay is finite, ≥ 0 and ≤ the cap; in normal
// mode no chain retries more than the budget; every turn that started ended.
func herdLogsKeepTheProperties(t *testing.T, r Result, s harness.RetryStrategy) {
	t.Helper()
	require.Len(t, r.Logs, r.Agents)
	assert.Empty(t, r.Findings)
	assert.Empty(t, r.Violations)
	assert.Zero(t, r.Unfinished)
	for i, events := range r.Logs {
		require.NoError(t, harness.ValidateLog(events), "agent %d", i)
		starts, ends := 0, 0
		for _, e := range events {
			switch d := e.Data.(type) {
			case harness.TurnStart:
				starts++
			case harness.TurnEnd:
				ends++
			case harness.LlmRetry:
				assert.False(t, math.IsNaN(d.DelayMs) || math.IsInf(d.DelayMs, 0), "agent %d: delay %g", i, d.DelayMs)
				assert.GreaterOrEqual(t, d.DelayMs, 0.0, "agent %d", i)
				assert.LessOrEqual(t, d.DelayMs, s.CapMs(), "agent %d", i)
				assert.Equal(t, s.Key(), d.PolicyKey)
				if s.Mode() == harness.ModeNormal {
					assert.LessOrEqual(t, d.Retry, s.Budget(), "agent %d", i)
				}
			}
		}
		assert.Equal(t, starts, ends, "agent %d: every turn ended", i)
	}
}

// Every zoo strategy, in a capacity-limited world with an outage, keeps the properties.
func TestHerdEveryZooStrategyKeepsThePropertiesUnderContention(t *testing.T) {
	noLeaks(t)
	model := DefaultCapacityModel()
	model.Outage = OutageWindow{FromMs: 1500, ToMs: 3000}
	for _, name := range zoo.Names() {
		for _, params := range []string{"", `{"always": true}`} {
			if params != "" && (name == "grpc-throttle" || name == "aws-quota" || strings.HasPrefix(name, "seed-")) {
				continue // no always mode
			}
			t.Run(name+params, func(t *testing.T) {
				var shared harness.RetryStrategy
				strategy := zooStrategy(t, name, params)
				r := Run(Options{
					Agents: 60, Seed: 3, Provider: model, RequestsPerAgent: 2, StartSpreadMs: 1000, ThinkMs: 200, KeepLogs: true,
					Strategy: func() harness.RetryStrategy { shared = strategy(); return shared },
				})
				herdLogsKeepTheProperties(t, r, shared)
				assert.Equal(t, 120, r.LogicalRequests)
				assert.Equal(t, r.LogicalRequests, r.Completed+r.GaveUp)
				assert.GreaterOrEqual(t, r.Attempts, r.LogicalRequests)
				assert.InDelta(t, float64(r.Attempts)/float64(r.LogicalRequests), r.Amplification, 1e-12)
				if shared.Mode() == harness.ModeAlways && name != "sre-adaptive" { // adaptive throttling drops retries in any mode
					assert.Zero(t, r.GaveUp, "always mode retries until success")
				}
			})
		}
	}
}

// The same options give the same result and the same logs.
func TestHerdIsDeterministic(t *testing.T) {
	model := DefaultCapacityModel()
	model.Outage = OutageWindow{FromMs: 500, ToMs: 1500}
	for _, name := range []string{"full-jitter", "grpc-throttle", "sre-adaptive"} {
		opts := Options{Agents: 80, Seed: 42, Provider: model, RequestsPerAgent: 3, StartSpreadMs: 700, ThinkMs: 300, KeepLogs: true, Strategy: zooStrategy(t, name, "")}
		a, b := Run(opts), Run(opts)
		assert.True(t, reflect.DeepEqual(a, b), "%s: two runs differ", name)
		opts.Seed = 43
		c := Run(opts)
		assert.False(t, reflect.DeepEqual(a.LoadPer100Ms, c.LoadPer100Ms), "%s: another seed, another run", name)
	}
	occ := Options{Agents: 30, Seed: 7, Provider: DefaultOCCModel(), Strategy: zooStrategy(t, "decorrelated-jitter", `{"always": true}`), KeepLogs: true}
	assert.True(t, reflect.DeepEqual(Run(occ), Run(occ)))
}

// The strategy is made once and shared by every agent: one token bucket for the herd.
func TestHerdSharesOneStrategyInstance(t *testing.T) {
	made := 0
	var bucket *zoo.GRPCThrottle
	r := Run(Options{Agents: 50, Seed: 1, Provider: DefaultCapacityModel(), RequestsPerAgent: 2, Strategy: func() harness.RetryStrategy {
		made++
		bucket, _ = zoo.NewGRPCThrottle(zoo.DefaultGRPCParams())
		return bucket
	}})
	assert.Equal(t, 1, made)
	assert.Less(t, bucket.Tokens(), 10.0, "the herd's failures drained the one bucket")
	// Throttled at half the bucket, the herd makes few retries: at most 5 before the first
	// throttle, plus one per 10 successes that reopen it.
	assert.LessOrEqual(t, r.Retries, 6+r.Completed/10)
}

// Over capacity the provider answers RATE_LIMIT with a Retry-After in whole steps, or SERVER
// without a hint in the configured fraction.
func TestHerdCapacityRefusals(t *testing.T) {
	for _, c := range []struct {
		fraction     float64
		code, absent string
	}{{0, harness.CodeRateLimit, harness.CodeServer}, {1, harness.CodeServer, harness.CodeRateLimit}} {
		model := DefaultCapacityModel()
		model.ServerFraction = c.fraction
		r := Run(Options{Agents: 100, Seed: 2, Provider: model, KeepLogs: true, Strategy: zooStrategy(t, "seed-default", "")})
		assert.Positive(t, r.FailuresByCode[c.code])
		assert.Zero(t, r.FailuresByCode[c.absent])
		for _, events := range r.Logs {
			for _, e := range events {
				if retry, ok := e.Data.(harness.LlmRetry); ok {
					f := retry.Failure
					assert.Equal(t, c.code, f.Code)
					if f.Code == harness.CodeRateLimit {
						assert.GreaterOrEqual(t, f.ProviderRetryAfterMs, model.RetryAfterStepMs)
						assert.Zero(t, math.Mod(f.ProviderRetryAfterMs, model.RetryAfterStepMs), "whole steps")
						assert.Equal(t, f.ProviderRetryAfterMs, retry.DelayMs, "the seed uses a hint within its cap exactly")
					} else {
						assert.False(t, f.HasRetryAfter())
					}
				}
			}
		}
	}
}

// An outage answers SERVER to everything and then recovers: the requests that piled up behind it
// come back together, a thundering herd over capacity, where the same load spread out fits.
func TestHerdOutageThenThunderingHerd(t *testing.T) {
	model := DefaultCapacityModel()
	model.ServerFraction = 0
	opts := Options{Agents: 100, Seed: 5, Provider: model, StartSpreadMs: 4000, KeepLogs: true,
		Strategy: zooStrategy(t, "exponential", `{"always": true}`)}
	calm := Run(opts)
	assert.Empty(t, calm.Violations)
	assert.Zero(t, calm.FailuresByCode[harness.CodeRateLimit], "25 requests a second fit")

	opts.Provider.Outage = OutageWindow{FromMs: 0, ToMs: 4000}
	herd := Run(opts)
	assert.Empty(t, herd.Violations)
	assert.Zero(t, herd.GaveUp)
	assert.Positive(t, herd.FailuresByCode[harness.CodeServer])
	assert.Equal(t, []int{0, 0, 0, 0}, herd.GoodputPerSecond[:4], "nothing succeeds during the outage")
	assert.Positive(t, herd.FailuresByCode[harness.CodeRateLimit], "the herd is over capacity")
	assert.Greater(t, herd.PeakPer100Ms, 2*calm.PeakPer100Ms)
	t.Logf("calm peak %d, herd peak %d, rate-limited %d", calm.PeakPer100Ms, herd.PeakPer100Ms, herd.FailuresByCode[harness.CodeRateLimit])
}

// Completion percentiles, peak and buckets come from the logs and the provider's records.
func TestHerdMetrics(t *testing.T) {
	assert.Equal(t, 0.0, nearestRank(nil, 0.5))
	sorted := []float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}
	assert.Equal(t, 50.0, nearestRank(sorted, 0.5))
	assert.Equal(t, 100.0, nearestRank(sorted, 0.99))
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	assert.Equal(t, 3, peakInWindow(ms(0, 50, 99, 100, 250), 100*time.Millisecond))
	assert.Equal(t, 2, peakInWindow(ms(0, 100, 150, 300), 100*time.Millisecond))
	assert.Equal(t, []int{2, 0, 1}, buckets(ms(10, 90, 250), 100*time.Millisecond))

	r := Run(Options{Agents: 1, Seed: 1, Provider: DefaultCapacityModel(), Strategy: zooStrategy(t, "seed-default", "")})
	assert.Equal(t, 1, r.Attempts)
	assert.Equal(t, 1.0, r.Amplification)
	assert.Equal(t, r.CompletionP50Ms, r.CompletionP99Ms)
	assert.Equal(t, r.FinishMs, r.CompletionP50Ms, "one agent starting at 0")
	assert.InDelta(t, 800, r.FinishMs, 400, "a service time in [400, 1200) ms")
	assert.Equal(t, []int{1}, r.GoodputPerSecond)
	assert.Equal(t, 1, r.PeakPer100Ms)
}

func TestHerdValidate(t *testing.T) {
	good := Options{Agents: 10, Provider: DefaultCapacityModel(), Strategy: zoo.SeedDefault}
	require.NoError(t, good.Validate())
	cases := []struct {
		change func(*Options)
		says   string
	}{
		{func(o *Options) { o.Agents = 0 }, "agents: 0 is outside 1..1000"},
		{func(o *Options) { o.Agents = 1001 }, "agents: 1001 is outside 1..1000"},
		{func(o *Options) { o.Strategy = nil }, "strategy: none given"},
		{func(o *Options) { o.StartSpreadMs = math.NaN() }, "startSpreadMs: NaN"},
		{func(o *Options) { o.MaxRequests = -1 }, "maxRequests: -1"},
		{func(o *Options) { o.Provider.Mode = "lottery" }, `mode: "lottery" is not capacity or occ`},
		{func(o *Options) { o.Provider.RequestsPerSecond = -1 }, "requestsPerSecond: -1"},
		{func(o *Options) { o.Provider.BurstRequests = 0.5 }, "burstRequests: 0.5 is below 1"},
		{func(o *Options) { o.Provider.Concurrency = -3 }, "concurrency: -3 is negative"},
		{func(o *Options) { o.Provider.RejectMs = 0 }, "rejectMs: 0 is not a finite number > 0"},
		{func(o *Options) { o.Provider.ServerFraction = 1.5 }, "serverFraction: 1.5 is outside [0, 1]"},
		{func(o *Options) { o.Provider.Outage = OutageWindow{FromMs: 5, ToMs: 2} }, "outage: ends at 2 ms, before it starts at 5 ms"},
		{func(o *Options) { o.Provider = DefaultOCCModel(); o.Provider.HopMs = 0 }, "hopMs: 0 is not a finite number > 0"},
		{func(o *Options) { o.Provider = DefaultOCCModel(); o.Provider.RoundMs = -1 }, "roundMs: -1"},
	}
	for _, c := range cases {
		o := good
		c.change(&o)
		err := o.Validate()
		require.Error(t, err, c.says)
		assert.Contains(t, err.Error(), c.says)
	}
	assert.Panics(t, func() { Run(Options{}) })
}

// A policy that never stops retrying into an endless outage meets the request limit: the run
// ends with a finding, every task unwound.
func TestHerdRequestLimit(t *testing.T) {
	noLeaks(t)
	model := DefaultCapacityModel()
	model.Outage = OutageWindow{FromMs: 0, ToMs: harness.TimerCeilingMs} // down for good, as far as any timer reaches
	r := Run(Options{Agents: 20, Seed: 1, Provider: model, MaxRequests: 500, Strategy: zooStrategy(t, "none", `{"always": true}`)})
	assert.Equal(t, []string{"request-limit: the provider took 500 requests, the herd's limit"}, r.Findings)
	assert.Equal(t, 500, r.Attempts)
	assert.Equal(t, 20, r.Unfinished)
	assert.Zero(t, r.Completed)
	assert.Zero(t, r.GaveUp, "a turn the unwinding settled (the harness ends a Goexit-ed turn in error) did not give up")
	assert.Empty(t, r.Violations, "nor does its settlement's agent/error count against the policy")
}

// A herd of 200 agents making 3 requests each stays cheap: its cost is its handoffs, a handful per
// attempt (the figures are deterministic: same seed, same counts). How fast that is on this
// machine is BenchmarkHerd's to measure; a wall-clock bound here failed on a loaded machine.
func TestHerdHandoffsStayFewPerAttempt(t *testing.T) {
	for _, name := range []string{"seed-default", "full-jitter", "grpc-throttle"} {
		r := Run(Options{Agents: 200, Seed: 1, Provider: DefaultCapacityModel(), RequestsPerAgent: 3, StartSpreadMs: 1000, Strategy: zooStrategy(t, name, "")})
		require.Positive(t, r.Attempts, name)
		assert.LessOrEqual(t, r.Handoffs, 6*r.Attempts, "%s: %d handoffs for %d attempts", name, r.Handoffs, r.Attempts)
		t.Logf("%s: 200 agents × 3 requests, %d attempts, %d handoffs", name, r.Attempts, r.Handoffs)
	}
}

// BenchmarkHerd measures a herd of 200 agents making 3 requests each, per policy:
// go test ./sim/herd -run X -bench Herd -benchmem
func BenchmarkHerd(b *testing.B) {
	for _, name := range []string{"seed-default", "full-jitter", "grpc-throttle"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				Run(Options{Agents: 200, Seed: 1, Provider: DefaultCapacityModel(), RequestsPerAgent: 3, StartSpreadMs: 1000, Strategy: zooStrategy(b, name, "")})
			}
		})
	}
}

// noLeaks checks, when the test ends, that it left no goroutine behind. Idle task goroutines,
// kept for a later run, end first (sched.ReleaseIdle): a leak check cannot wait for their sweep.
func noLeaks(t *testing.T) {
	t.Helper()
	t.Cleanup(func() { sched.ReleaseIdle(); goleak.VerifyNone(t) })
}
