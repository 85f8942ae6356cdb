package providerdiff

import (
	"bytes"
	"context"
	"math"
	"math/rand"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/eventjson"
	"github.com/turnsim/turnsim/harness/filestore"
	"github.com/turnsim/turnsim/harness/provider/openai"
	"github.com/turnsim/turnsim/internal/faultserver"
	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/sim/sched"
)

// logDiffScale shrinks a plan's times (delays, Retry-After, tool latencies, the policy's delays)
// so that real timers play it in a few hundred milliseconds; both sides play the shrunk plan.
const logDiffScale = 0.01

// shrunk returns plan with every time scaled by logDiffScale, and whether its answers are free of
// the wire's known differences and of parallel calls (whose completion order real goroutines do
// not fix): only such plans owe the same log on both sides.
func shrunk(plan faults.Plan) (faults.Plan, bool) {
	s := func(ms float64) float64 { return math.Max(1, math.Round(ms*logDiffScale)) }
	plan.Policy.InitialDelayMs = s(plan.Policy.InitialDelayMs)
	plan.Policy.MaxDelayMs = math.Max(plan.Policy.InitialDelayMs, s(plan.Policy.MaxDelayMs))
	plan.HorizonMs = math.MaxInt64
	comparable := plan.CompactionBudget == 0 && !plan.HarnessDefaults
	answers := make([]faults.Answer, len(plan.Answers))
	for i, a := range plan.Answers {
		a.ChunkDelayMs = int64(s(float64(a.ChunkDelayMs)))
		if a.Fail != nil {
			f := *a.Fail
			if f.RetryAfterMs > 0 {
				f.RetryAfterMs = s(f.RetryAfterMs)
			}
			a.Fail = &f
			comparable = comparable && !f.Plain && a.Chunks == 0 && f.Code != harness.CodeEmptyResponse && !(f.Code == harness.CodeTimeout && f.Status == 0)
		}
		comparable = comparable && !(a.Fail == nil && a.Chunks == 0 && len(a.Calls) == 0) && len(a.Calls) <= 1 && !a.Goexit && !a.NilStream
		calls := slices.Clone(a.Calls)
		for j := range calls {
			calls[j].LatencyMs = int64(s(float64(calls[j].LatencyMs)))
		}
		a.Calls = calls
		answers[i] = a
	}
	plan.Answers = answers
	return plan, comparable
}

// logDiffAgent builds the agent both sides run: the plan's policy, the simulator's tools.
func logDiffAgent(t *testing.T, plan faults.Plan, p harness.Provider, rt harness.Runtime, store harness.Store) *harness.Agent {
	policy := plan.Policy
	agent, err := harness.New(harness.Config{
		Provider: p, Runtime: rt, Random: rand.New(rand.NewSource(1)), Store: store,
		RetryPolicy: &policy, Tools: sim.PlanTools(rt), MaxParallelToolCalls: plan.MaxParallelToolCalls,
	})
	require.NoError(t, err)
	return agent
}

// The simulator's provider model against real HTTP at the level of the session log: one user
// message, then the plan's answers, played by the model on the scheduler and by the fault server
// through the OpenAI adapter on the production runtime with the file store. For plans without
// the wire's known differences, the two logs tell the same story, times and delays aside, and
// both pass simrun check's log-only properties.
func TestProviderModelLogMatchesRealHTTP(t *testing.T) {
	seeds, compared, events := differentialSeeds(t), 0, 0
	for seed := int64(1); compared < seeds && seed <= int64(seeds)*20; seed++ {
		plan, ok := shrunk(sim.NewSchedule(seed, nil).Plan)
		if !ok || len(plan.Answers) == 0 {
			continue
		}
		compared++

		s := sched.New(sched.Options{Seed: 1, MaxVirtualTime: 24 * time.Hour})
		var simLog []harness.Event
		report := s.Run("main", func() {
			p := sim.PlanProvider(s, plan)
			agent := logDiffAgent(t, plan, p, s, nil)
			_, err := agent.Followup("hi")
			require.NoError(t, err)
			require.NoError(t, agent.WhenIdle(context.Background()))
			simLog = agent.Session().Events()
		})
		require.Empty(t, report.Findings, "seed %d", seed)

		fs, err := faultserver.New(faultserver.Config{Steps: faultserver.FromPlan(&plan), MaxRequests: 1000})
		require.NoError(t, err)
		srv := httptest.NewServer(fs)
		p, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "m", Clock: wallClock{}, Timeout: 30 * time.Second, Name: "simulated"})
		require.NoError(t, err)
		store, _, err := filestore.Open(filepath.Join(t.TempDir(), "session.jsonl"))
		require.NoError(t, err)
		agent := logDiffAgent(t, plan, p, harness.NewProductionRuntime(nil), store)
		_, err = agent.Followup("hi")
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		require.NoError(t, agent.WhenIdle(ctx), "seed %d: the real run settles", seed)
		cancel()
		realLog := agent.Session().Events()
		require.NoError(t, agent.Dispose())
		require.NoError(t, store.Close())
		srv.Close()

		require.NoError(t, harness.ValidateLog(realLog))
		var jsonl bytes.Buffer
		require.NoError(t, eventjson.Write(&jsonl, realLog))
		verdict := properties.CheckLogWith(realLog, jsonl.Bytes(), properties.LogOptions{LateMs: 250})
		assert.Empty(t, verdict.Violations, "seed %d: the real log passes simrun check", seed)
		events += len(realLog)
		assert.Equal(t, sim.Story(simLog), sim.Story(realLog), "seed %d", seed)
	}
	t.Logf("%d seeds' logs compared (%d events on the real side)", compared, events)
	assert.Positive(t, compared)
}
