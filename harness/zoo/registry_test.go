package zoo_test

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/zoo"
)

func TestZooNames(t *testing.T) {
	assert.Equal(t, []string{
		"none", "constant", "exponential", "full-jitter", "equal-jitter", "decorrelated-jitter",
		"sdk", "grpc-throttle", "aws-quota", "sre-adaptive", "seed-default", "seed-always",
	}, zoo.Names())
	for _, name := range zoo.Names() {
		assert.NotEmpty(t, zoo.Summary(name), name)
	}
	_, err := zoo.New("gremlins", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown strategy "gremlins"`)
}

// nil parameters give the published defaults; the keys spell them out.
func TestZooDefaultsAndKeys(t *testing.T) {
	want := map[string]string{
		"none":                "none/retries=10",
		"constant":            "constant/delay=5/retries=10",
		"exponential":         "exponential/base=5/cap=2000/retries=10",
		"full-jitter":         "full-jitter/base=5/cap=2000/retries=10",
		"equal-jitter":        "equal-jitter/base=5/cap=2000/retries=10",
		"decorrelated-jitter": "decorrelated-jitter/base=5/cap=2000/retries=10",
		"sdk":                 "sdk/initial=500/max=8000/jitter=0.25/retry-after-max=60000/retries=2",
		"grpc-throttle":       "grpc-throttle/attempts=5/initial=100/max=1000/multiplier=2/tokens=10/ratio=0.1",
		"aws-quota":           "aws-quota/attempts=3/base=1000/max=20000/quota=500/cost=5/timeout-cost=10/increment=1",
		"sre-adaptive":        "sre-adaptive/k=2/window=120000/base=500/cap=10000/retries=3",
		"seed-default":        harness.DefaultRetryPolicy().PolicyKey(),
		"seed-always":         zoo.SeedAlwaysPolicy().PolicyKey(),
	}
	budgets := map[string]int{"sdk": 2, "grpc-throttle": 4, "aws-quota": 2, "sre-adaptive": 3, "seed-default": 2, "seed-always": 0}
	caps := map[string]float64{"none": 0, "constant": 5, "sdk": 60000, "grpc-throttle": 1000, "aws-quota": 20000, "sre-adaptive": 10000, "seed-default": 10000, "seed-always": 10000}
	for _, name := range zoo.Names() {
		s := build(t, name, "")
		assert.Equal(t, want[name], s.Key(), name)
		budget, ok := budgets[name]
		if !ok {
			budget = zoo.DefaultMaxRetries
		}
		assert.Equal(t, budget, s.Budget(), name)
		capMs, ok := caps[name]
		if !ok {
			capMs = 2000
		}
		assert.Equal(t, capMs, s.CapMs(), name)
		for _, empty := range []string{"null", "{}", " "} {
			assert.Equal(t, s.Key(), build(t, name, empty).Key(), "%s with %q", name, empty)
		}
	}
}

// A different parameter, a different key: a changed policy starts a new chain.
func TestZooKeysDifferWhenParametersDiffer(t *testing.T) {
	variants := map[string][]string{
		"none":                {`{"maxRetries": 3}`, `{"always": true}`},
		"constant":            {`{"delayMs": 6}`, `{"maxRetries": 3}`, `{"always": true}`},
		"full-jitter":         {`{"baseMs": 6}`, `{"capMs": 3000}`, `{"maxRetries": 3}`, `{"always": true}`},
		"sdk":                 {`{"maxRetries": 3}`, `{"initialDelayMs": 400}`, `{"maxDelayMs": 9000}`, `{"jitterRatio": 0.5}`, `{"retryAfterMaxMs": 0}`, `{"always": true}`},
		"grpc-throttle":       {`{"maxAttempts": 4}`, `{"initialBackoffMs": 50}`, `{"maxBackoffMs": 2000}`, `{"backoffMultiplier": 1.5}`, `{"maxTokens": 20}`, `{"tokenRatio": 0.2}`},
		"aws-quota":           {`{"maxAttempts": 4}`, `{"baseMs": 500}`, `{"maxBackoffMs": 10000}`, `{"quotaTokens": 100}`, `{"retryCost": 1}`, `{"timeoutRetryCost": 1}`, `{"successIncrement": 2}`},
		"sre-adaptive":        {`{"k": 1.5}`, `{"windowMs": 60000}`, `{"baseMs": 100}`, `{"capMs": 5000}`, `{"maxRetries": 2}`, `{"always": true}`},
		"seed-default":        {`{"initialDelayMs": 400}`, `{"jitterRatio": 0.2}`},
		"decorrelated-jitter": {`{"baseMs": 10}`},
	}
	for name, params := range variants {
		seen := map[string]string{build(t, name, "").Key(): "defaults"}
		for _, p := range params {
			key := build(t, name, p).Key()
			_, dup := seen[key]
			assert.False(t, dup, "%s %s has the key of %s: %s", name, p, seen[key], key)
			seen[key] = p
		}
	}
	// The family is part of the key even with equal parameters.
	assert.NotEqual(t, build(t, "full-jitter", "").Key(), build(t, "equal-jitter", "").Key())
}

// Bad parameters are refused with an error naming the field.
func TestZooValidationNamesTheField(t *testing.T) {
	cases := []struct{ name, params, says string }{
		{"full-jitter", `{"baseMs": -1}`, "full-jitter: baseMs: -1 is negative"},
		{"full-jitter", `{"capMs": 1}`, "full-jitter: capMs: 1 is below baseMs 5"},
		{"exponential", `{"maxRetries": 0}`, "exponential: maxRetries: 0 is below 1"},
		{"equal-jitter", `{"always": true, "maxRetries": 3}`, "equal-jitter: maxRetries: always mode retries until success"},
		{"decorrelated-jitter", `{"baseMs": 1e400}`, "decorrelated-jitter: baseMs: 1e400 is out of range for a number"},
		{"full-jitter", `{"baseMs": null}`, "full-jitter: baseMs: null is not a value"},
		{"decorrelated-jitter", `{"baseMs": NaN}`, "decorrelated-jitter: baseMs: not valid JSON"},
		{"full-jitter", `{"baseMs": "5"}`, "full-jitter: baseMs: got string, want a number"},
		{"full-jitter", `{"basems": 5}`, "full-jitter: basems: unknown field (known: baseMs, capMs, maxRetries, always)"},
		{"full-jitter", `{"jitter": 5}`, "full-jitter: jitter: unknown field"},
		{"full-jitter", `[1, 2]`, "full-jitter: parameters must be a JSON object"},
		{"none", `{"maxRetries": -2}`, "none: maxRetries: -2 is below 1"},
		{"constant", `{"delayMs": -5}`, "constant: delayMs: -5 is negative"},
		{"constant", `{"delayMs": 3e9}`, "constant: delayMs: 3e+09 is above the timer ceiling"},
		{"sdk", `{"jitterRatio": 1.5}`, "sdk: jitterRatio: 1.5 is outside [0, 1]"},
		{"sdk", `{"jitterRatio": -0.1}`, "sdk: jitterRatio: -0.1 is outside [0, 1]"},
		{"sdk", `{"maxRetries": 0}`, "sdk: maxRetries: 0 is below 1"},
		{"sdk", `{"retryAfterMaxMs": -1}`, "sdk: retryAfterMaxMs: -1 is negative"},
		{"grpc-throttle", `{"maxAttempts": 1}`, "grpc-throttle: maxAttempts: 1 is below 2: a budget of 0 retries"},
		{"grpc-throttle", `{"maxTokens": 0}`, "grpc-throttle: maxTokens: 0 is not a positive finite number"},
		{"grpc-throttle", `{"maxTokens": 1001}`, "grpc-throttle: maxTokens: 1001 is above 1000"},
		{"grpc-throttle", `{"tokenRatio": 0.0001}`, "grpc-throttle: tokenRatio: 0.0001 rounds to 0"},
		{"grpc-throttle", `{"initialBackoffMs": 0}`, "grpc-throttle: initialBackoffMs: 0 is not a positive finite number"},
		{"grpc-throttle", `{"backoffMultiplier": -2}`, "grpc-throttle: backoffMultiplier: -2 is not a positive finite number"},
		{"aws-quota", `{"quotaTokens": 0}`, "aws-quota: quotaTokens: 0 is below 1"},
		{"aws-quota", `{"maxAttempts": 1}`, "aws-quota: maxAttempts: 1 is below 2"},
		{"aws-quota", `{"retryCost": -5}`, "aws-quota: retryCost: -5 is negative"},
		{"aws-quota", `{"retryCost": 2.5}`, "aws-quota: retryCost: got number 2.5, want an integer"},
		{"sre-adaptive", `{"k": 0}`, "sre-adaptive: k: 0 is not a positive finite number"},
		{"sre-adaptive", `{"windowMs": -1}`, "sre-adaptive: windowMs: -1 is not a positive finite number"},
		{"seed-default", `{"jitterRatio": 2}`, "seed-default: jitterRatio: 2 is outside [0, 1]"},
		{"seed-default", `{"maxRetries": 0}`, "seed-default: maxRetries: 0 is below 1"},
		{"seed-default", `{"initialDelayMs": -1}`, "seed-default: initialDelayMs: -1 is negative"},
		{"seed-always", `{"maxRetries": 2}`, "seed-always: maxRetries: always mode retries without limit"},
	}
	for _, c := range cases {
		t.Run(c.name+" "+c.params, func(t *testing.T) {
			_, err := zoo.New(c.name, json.RawMessage(c.params))
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.says)
			var paramsErr *zoo.ParamsError
			assert.True(t, errors.As(err, &paramsErr), "a *ParamsError")
		})
	}
}

func TestZooParseParams(t *testing.T) {
	good := []byte(`{"full-jitter": {"baseMs": 5, "capMs": 2000, "always": true}, "sdk": {"maxRetries": 3}}`)
	byName, err := zoo.ParseParams(good)
	require.NoError(t, err)
	s, err := zoo.New("full-jitter", byName["full-jitter"])
	require.NoError(t, err)
	assert.Equal(t, "full-jitter/base=5/cap=2000/always", s.Key())
	assert.Equal(t, harness.ModeAlways, s.Mode())
	assert.Zero(t, s.Budget())

	cases := []struct{ file, says string }{
		{`{"full-jitter": {"baseMs": NaN}}`, "parameters: full-jitter.baseMs: not valid JSON"},
		{`{"full-jitter": {"capMs": 10, "baseMs": Infinity}}`, "full-jitter.baseMs: not valid JSON"},
		{`{"full-jitter": {"baseMs": -3}}`, "full-jitter: baseMs: -3 is negative"},
		{`{"full-jitter": {"bogus": 1}}`, "full-jitter: bogus: unknown field"},
		{`{"gremlins": {}}`, `unknown strategy "gremlins"`},
		{`[]`, "want one JSON object"},
		{`{"sdk": {"jitterRatio": 7}}`, "sdk: jitterRatio: 7 is outside [0, 1]"},
		{`{"sdk": `, "not valid JSON"},
		{`{"full-jitter": null}`, "full-jitter: null is not parameters"},
		{`{"full-jitter": {"baseMs": null}}`, "full-jitter: baseMs: null is not a value"},
		{`{"full-jitter": {"capMs": 1e400}}`, "full-jitter: capMs: 1e400 is out of range for a number"},
	}
	for _, c := range cases {
		_, err := zoo.ParseParams([]byte(c.file))
		require.Error(t, err, c.file)
		assert.Contains(t, err.Error(), c.says, c.file)
	}
}

// Every New returns a fresh instance: two herds never share a bucket.
func TestZooNewReturnsFreshSharedState(t *testing.T) {
	a := build(t, "grpc-throttle", "").(*zoo.GRPCThrottle)
	b := build(t, "grpc-throttle", "").(*zoo.GRPCThrottle)
	a.Observe(harness.AttemptOutcome{Failure: rateLimit})
	assert.Equal(t, 9.0, a.Tokens())
	assert.Equal(t, 10.0, b.Tokens())
}

// The shared strategies are safe for concurrent use (run with -race).
func TestZooSharedStrategiesAreSafeForConcurrentUse(t *testing.T) {
	for _, name := range []string{"grpc-throttle", "aws-quota", "sre-adaptive"} {
		s := build(t, name, "")
		observer := s.(harness.RetryObserver)
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				draws := 0
				for i := range 200 {
					observer.Observe(harness.AttemptOutcome{Success: i%3 == 0, Failure: rateLimit, AtMs: int64(i)})
					s.Decide(harness.RetryContext{Failure: rateLimit, Retry: 1 + g%4, Random: fixed(0.5, &draws)})
				}
			}()
		}
		wg.Wait()
	}
}

// Every family's defaults, as DefaultParams gives them, build that family.
func TestDefaultParamsBuildEveryFamily(t *testing.T) {
	for _, name := range zoo.Names() {
		raw, err := zoo.DefaultParams(name)
		require.NoError(t, err, name)
		_, err = zoo.New(name, raw)
		require.NoError(t, err, "%s: %s", name, raw)
	}
	_, err := zoo.DefaultParams("nonesuch")
	require.Error(t, err)
}
