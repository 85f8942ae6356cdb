package sim

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
)

// failRecorder is a rapid.TB that records a failing check instead of failing the test.
type failRecorder struct {
	mu     sync.Mutex
	lines  []string
	failed bool
}

var _ rapid.TB = (*failRecorder)(nil)

func (r *failRecorder) Helper()      {}
func (r *failRecorder) Name() string { return "policy-agent" }
func (r *failRecorder) Logf(format string, args ...any) {
	r.record(fmt.Sprintf(format, args...), false)
}
func (r *failRecorder) Log(args ...any)                  { r.record(fmt.Sprint(args...), false) }
func (r *failRecorder) Skipf(format string, args ...any) { runtime.Goexit() }
func (r *failRecorder) Skip(args ...any)                 { runtime.Goexit() }
func (r *failRecorder) SkipNow()                         { runtime.Goexit() }
func (r *failRecorder) Errorf(format string, args ...any) {
	r.record(fmt.Sprintf(format, args...), true)
}
func (r *failRecorder) Error(args ...any) { r.record(fmt.Sprint(args...), true) }
func (r *failRecorder) Fatalf(format string, args ...any) {
	r.record(fmt.Sprintf(format, args...), true)
}
func (r *failRecorder) Fatal(args ...any) { r.record(fmt.Sprint(args...), true) }
func (r *failRecorder) FailNow()          { r.Fail() }
func (r *failRecorder) Fail()             { r.record("", true) }
func (r *failRecorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

func (r *failRecorder) record(line string, failed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, line)
	r.failed = r.failed || failed
}

// CheckPolicyAgent fuzzes a family in the user's agent: the agent's own property judges every
// drawn run (here one that no run with a retry passes), which CheckPolicy's turnsim agent never
// has.
func TestCheckPolicyAgentRunsTheUsersAgent(t *testing.T) {
	noRetry := properties.Define("no-retry", "planted: no run retries", func(r *properties.Run, report *properties.Reporter) {
		for _, e := range r.Log {
			if _, ok := e.Data.(harness.LlmRetry); ok {
				report.Errorf(e.Seq, e.Time, "a retry")
				return
			}
		}
	})
	family, err := PolicyFamilyByName("full-jitter")
	require.NoError(t, err)
	agent := Agent{Properties: []properties.Property{noRetry}}
	caught := &failRecorder{}
	rapid.Check(caught, func(t *rapid.T) { CheckPolicyAgent(t, family, []string{"rate-limit"}, agent) })
	require.True(t, caught.Failed(), "the agent's property judged the drawn runs")
	assert.Contains(t, strings.Join(caught.lines, "\n"), "no-retry")

	plain := &failRecorder{}
	rapid.Check(plain, func(t *rapid.T) { CheckPolicy(t, family, []string{"rate-limit"}) })
	assert.False(t, plain.Failed(), "turnsim's own agent has no such property: %s", strings.Join(plain.lines, "\n"))
}

// Every family of the zoo can be built from parameters, as policy builds the ones it compares.
func TestZooFamiliesBuildFromParameters(t *testing.T) {
	for _, family := range PolicyFamilies() {
		require.NotNil(t, family.New, family.Name)
		newStrategy, key, err := family.New(nil)
		require.NoError(t, err, family.Name)
		assert.Equal(t, key, newStrategy().Key(), family.Name)
	}
	family, _ := PolicyFamilyByName("full-jitter")
	_, _, err := family.New([]byte(`{"capMs": -1}`))
	assert.ErrorContains(t, err, "capMs")
}

// A PerSeed agent is fuzzed with the drawn strategy too: CheckPolicyAgent once set NewStrategy on
// the outer Agent, which PerSeed's replaces, so every run used the agent's own and the family
// went unfuzzed.
func TestCheckPolicyAgentFuzzesAPerSeedAgent(t *testing.T) {
	var mu sync.Mutex
	made := 0
	family := PolicyFamily{Name: "counted", Draw: func(t *rapid.T) (func() harness.RetryStrategy, string) {
		return func() harness.RetryStrategy {
			mu.Lock()
			made++
			mu.Unlock()
			return harness.DefaultRetryPolicy().Strategy()
		}, "counted"
	}}
	agent := Agent{PerSeed: func() Agent { return Agent{} }}
	rapid.Check(t, func(rt *rapid.T) { CheckPolicyAgent(rt, family, nil, agent) })
	assert.Positive(t, made, "the drawn strategy built the agent's retry policy")
}
