package sim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim"
)

// A user's agent for these tests: a lookup tool that waits through the runtime, a fallback
// handler that re-sends once per step after llm-retry gave up on a server failure, and provider
// middleware that counts requests.

func lookupTool(rt harness.Runtime) harness.Tool {
	return harness.Tool{Name: "lookup", Parallel: true, Run: func(ctx context.Context, arguments string) (string, error) {
		var args struct{ Key string }
		if err := json.Unmarshal([]byte(arguments), &args); err != nil {
			return "", fmt.Errorf("lookup: %w", err)
		}
		if err := rt.Sleep(40*time.Millisecond, ctx); err != nil {
			return "", err
		}
		return `{"key":"` + args.Key + `","value":42}`, nil
	}}
}

type fallbackHandler struct{ used map[[2]int]bool }

func (h *fallbackHandler) HandleRequestError(req *harness.RequestError, next func() bool) (bool, error) {
	if next() {
		return true, nil
	}
	key := [2]int{req.Turn, req.Step}
	if req.Failure.Code != harness.CodeServer || h.used[key] {
		return false, nil
	}
	h.used[key] = true
	return true, nil
}

type countingProvider struct {
	harness.Provider
	requests *atomic.Int64
}

func (p countingProvider) Stream(ctx context.Context, r harness.Request) (harness.Stream, error) {
	p.requests.Add(1)
	return p.Provider.Stream(ctx, r)
}

// lookupResultsEcho is a user property: every successful lookup answers the key it was asked.
var lookupResultsEcho = properties.Define("lookup-echoes-key", "a successful lookup answers for the key it was asked", func(r *properties.Run, report *properties.Reporter) {
	asked := map[string]string{}
	for _, e := range r.Log {
		switch d := e.Data.(type) {
		case harness.ToolCall:
			var args struct {
				Input string `json:"input"`
			}
			if d.Name == "lookup" && json.Unmarshal([]byte(d.Arguments), &args) == nil {
				var in struct{ Key string }
				_ = json.Unmarshal([]byte(args.Input), &in)
				asked[d.CallID] = in.Key
			}
		case harness.ToolResult:
			key, ok := asked[d.CallID]
			if ok && !d.IsError && !strings.Contains(d.Content, `"key":"`+key+`"`) {
				report.Errorf(e.Seq, e.Time, "lookup %s asked for %q and answered %q", d.CallID, key, d.Content)
			}
		}
	}
})

func userAgent(requests *atomic.Int64, extra ...properties.Property) sim.Agent {
	return sim.Agent{
		Tools: func(rt harness.Runtime) []harness.Tool { return []harness.Tool{lookupTool(rt)} },
		Arguments: func(tool string, r *rand.Rand) string {
			return fmt.Sprintf(`{"Key":"k%d"}`, r.Intn(100))
		},
		NewHandlers: func(harness.Runtime) []harness.RequestErrorHandler {
			return []harness.RequestErrorHandler{&fallbackHandler{used: map[[2]int]bool{}}}
		},
		WrapProvider: func(p harness.Provider) harness.Provider { return countingProvider{Provider: p, requests: requests} },
		Properties:   append([]properties.Property{lookupResultsEcho}, extra...),
	}
}

func TestUserAgentKeepsEveryProperty(t *testing.T) {
	var requests atomic.Int64
	s := sim.RunSeeds(sim.RunOptions{Start: 1, Count: 300, Agent: userAgent(&requests), CheckDeterminism: true})
	assert.Empty(t, s.Failures, "every property holds, and every seed's two runs wrote the same bytes")
	assert.Empty(t, s.ConfigError)
	assert.Positive(t, requests.Load(), "the middleware saw the requests")
	assert.Positive(t, s.FaultCoverage["tool-panic"], "the world's tool faults strike the user's tool")
}

func TestUserToolRunsForRealUnderTheWorldsFaults(t *testing.T) {
	var requests atomic.Int64
	agent := userAgent(&requests)
	ran, fallbacks := 0, 0
	for seed := int64(1); seed <= 40; seed++ {
		out := sim.RunScheduleAgent(sim.NewSchedule(seed, nil), agent)
		fallbacks += len(out.Trace.HandlerRetries)
		for _, run := range out.Trace.Tools {
			if run.Outcome == "ok" {
				ran++
				assert.Equal(t, "lookup", run.Name)
				assert.Contains(t, run.Content, `"value":42`, "the user's tool's own answer")
			}
		}
	}
	assert.Positive(t, ran)
	assert.Positive(t, fallbacks, "the fallback handler re-sent requests, and retry-budget allowed for them")
}

func TestUserPropertyIsReportedSummarisedAndShrunk(t *testing.T) {
	var requests atomic.Int64
	noTwoLookups := properties.Define("at-most-one-lookup", "a run calls lookup at most once (planted: false on purpose)", func(r *properties.Run, report *properties.Reporter) {
		n := 0
		for _, e := range r.Log {
			if c, ok := e.Data.(harness.ToolCall); ok && c.Name == "lookup" {
				if n++; n == 2 {
					report.Errorf(e.Seq, e.Time, "second lookup %s", c.CallID)
				}
			}
		}
	})
	agent := userAgent(&requests, noTwoLookups)
	s := sim.RunSeeds(sim.RunOptions{Start: 1, Count: 50, Agent: agent})
	require.Positive(t, s.ViolationsByProperty["at-most-one-lookup"])
	seed := s.Failures[0].Seed
	r := sim.ShrinkAgent(sim.NewSchedule(seed, nil), "at-most-one-lookup", 5*time.Second, agent)
	assert.True(t, sim.FailsAgent(r.Schedule, "at-most-one-lookup", agent))
	assert.Less(t, r.SizeAfter, r.SizeBefore)

	rec := &sim.Recorder{}
	sim.Check(rec, sim.CheckOptions{Seeds: 20, Agent: agent, ShrinkBudget: 2 * time.Second})
	require.NotEmpty(t, rec.Errors)
	assert.Contains(t, rec.Errors[0], "at-most-one-lookup")
	assert.Contains(t, rec.Errors[0], "reproduce: TURNSIM_SEED=")
	assert.Contains(t, rec.Errors[len(rec.Errors)-1], "shrunk for")
}

type zeroBudget struct{ harness.SeedStrategy }

func (zeroBudget) Budget() int { return 0 }

func TestRefusedConfigurationIsReportedOnceNamingTheField(t *testing.T) {
	rec := &sim.Recorder{}
	strategy := zeroBudget{harness.SeedStrategy{Policy: harness.DefaultRetryPolicy()}}
	sim.Check(rec, sim.CheckOptions{Seeds: 50, Agent: sim.Agent{NewStrategy: func() harness.RetryStrategy { return strategy }}})
	require.Len(t, rec.Errors, 1)
	assert.Contains(t, rec.Errors[0], "RetryStrategy")
	assert.Contains(t, rec.Errors[0], "budget")
	assert.NotContains(t, rec.Errors[0], "liveness")

	s := sim.RunSeeds(sim.RunOptions{Start: 1, Count: 10, Agent: sim.Agent{Tools: func(harness.Runtime) []harness.Tool { return []harness.Tool{{Name: "x"}} }}})
	assert.Zero(t, s.Seeds)
	assert.Contains(t, s.ConfigError, `tool "x" needs a name and a Run function`)
}

// A user's tool that does not honour its context (it waits without it) is reported by
// tool-context-cancelled: the world expects every tool to stop when its step is cancelled,
// unless the plan itself made the call ignore cancellation.
func TestUserToolIgnoringItsContextIsReported(t *testing.T) {
	agent := sim.Agent{Tools: func(rt harness.Runtime) []harness.Tool {
		return []harness.Tool{{Name: "slow", Parallel: true, Run: func(ctx context.Context, arguments string) (string, error) {
			_ = rt.Sleep(500 * time.Millisecond) // the defect: no ctx
			return "done", nil
		}}}
	}}
	s := sim.RunSeeds(sim.RunOptions{Start: 1, Count: 300, Agent: agent})
	assert.Positive(t, s.ViolationsByProperty["tool-context-cancelled"])
}
