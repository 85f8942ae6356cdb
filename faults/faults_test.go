package faults

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/turnsim/turnsim/harness"
)

func TestCatalogueIsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Catalogue() {
		assert.False(t, seen[f.Name], "duplicate fault %s", f.Name)
		seen[f.Name] = true
		assert.NotEmpty(t, f.Doc, f.Name)
		assert.Contains(t, []string{GroupProvider, GroupTools, GroupUser, GroupHost, GroupWire}, f.Group, f.Name)
	}
	for _, name := range providerFaults {
		f, ok := Lookup(name)
		require.True(t, ok, name)
		assert.Equal(t, GroupProvider, f.Group)
	}
}

func TestParseList(t *testing.T) {
	names, err := ParseList("rate-limit, tool-panic")
	require.NoError(t, err)
	assert.Equal(t, []string{RateLimit, ToolPanic}, names)
	for list, says := range map[string]string{
		"rate-limit,gremlins": `unknown fault "gremlins"`,
		"rate-limit,,server":  "empty fault name",
		"server,server":       `fault "server" named twice`,
		"":                    "empty fault name",
	} {
		_, err := ParseList(list)
		require.Error(t, err, list)
		assert.Contains(t, err.Error(), says)
	}
}

// Every plan drawn from any seed and any allowed subset is valid and uses only allowed faults.
func TestDrawnPlansAreValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Int64().Draw(t, "seed")
		allowed := rapid.SliceOfDistinct(rapid.SampledFrom(Names()), func(s string) string { return s }).Draw(t, "allowed")
		if len(allowed) == 0 {
			allowed = nil
		}
		rng := rand.New(rand.NewSource(seed))
		swarm := DrawSwarm(rng, allowed)
		if len(swarm) == 0 && (allowed == nil || slices.ContainsFunc(allowed, func(name string) bool { f, _ := Lookup(name); return f.Group != GroupWire })) {
			t.Fatalf("an empty swarm") // only the wire's faults are drawn apart (DrawWire)
		}
		plan := DrawPlan(rng, swarm)
		if err := plan.Validate(); err != nil {
			t.Fatalf("drawn plan is invalid: %v", err)
		}
		for _, name := range swarm.Enabled() {
			if allowed != nil && !slices.Contains(allowed, name) {
				t.Fatalf("fault %s struck although only %v were allowed", name, allowed)
			}
		}
		for _, a := range plan.Answers {
			if a.Fault != "" && swarm[a.Fault] == 0 {
				t.Fatalf("answer shaped by %s, which the swarm did not enable", a.Fault)
			}
		}
		if plan.Actions[0].Kind != ActFollowup || plan.Actions[0].AtMs != 0 {
			t.Fatalf("the plan does not open with the first followup")
		}
	})
}

func TestDrawIsDeterministic(t *testing.T) {
	draw := func() Plan {
		rng := rand.New(rand.NewSource(99))
		return DrawPlan(rng, DrawSwarm(rng, nil))
	}
	assert.Equal(t, draw(), draw())
}

func TestPlanValidationNamesTheField(t *testing.T) {
	valid := func() Plan {
		return Plan{
			Policy:    harness.DefaultRetryPolicy(),
			HorizonMs: 1000,
			Answers:   []Answer{{Chunks: 1, Finish: harness.FinishCompleted, Calls: []Call{{Name: "read", Outcome: OutcomeOK}}}},
			Actions:   []Action{{Kind: ActFollowup}, {Kind: ActCancel, Cause: harness.CauseUser}},
		}
	}
	require.NoError(t, valid().Validate())
	cases := map[string]struct {
		edit func(p *Plan)
		says string
	}{
		"policy":             {func(p *Plan) { p.Policy.JitterRatio = 2 }, "jitterRatio"},
		"pool":               {func(p *Plan) { p.MaxParallelToolCalls = -1 }, "maxParallelToolCalls"},
		"horizon":            {func(p *Plan) { p.HorizonMs = -1 }, "horizonMs"},
		"chunks":             {func(p *Plan) { p.Answers[0].Chunks = -1 }, "answers[0]: chunks"},
		"finish":             {func(p *Plan) { p.Answers[0].Finish = "stop" }, "answers[0]: finish"},
		"outcome":            {func(p *Plan) { p.Answers[0].Calls[0].Outcome = "meh" }, "calls[0]: outcome"},
		"latency":            {func(p *Plan) { p.Answers[0].Calls[0].LatencyMs = -3 }, "calls[0]: latencyMs"},
		"answer fault":       {func(p *Plan) { p.Answers[0].Fault = "gremlins" }, `unknown fault "gremlins"`},
		"fail code":          {func(p *Plan) { p.Answers[0].Fail = &Fail{} }, "fail.code is empty"},
		"goexit":             {func(p *Plan) { p.Answers[0].Goexit = true }, "answers[0]: goexit"},
		"nilStream":          {func(p *Plan) { p.Answers[0].NilStream = true }, "answers[0]: nilStream"},
		"action kind":        {func(p *Plan) { p.Actions[0].Kind = "shout" }, `actions[0]: kind "shout"`},
		"cancel cause":       {func(p *Plan) { p.Actions[1].Cause = "shutdown" }, "actions[1]: cancel cause"},
		"action time":        {func(p *Plan) { p.Actions[0].AtMs = -1 }, "actions[0]: atMs"},
		"refusal window":     {func(p *Plan) { p.Refusals = []Window{{FromMs: 5, UntilMs: 1}} }, "refusals[0]"},
		"compactionBudget":   {func(p *Plan) { p.CompactionBudget = -2 }, "compactionBudget"},
		"harnessDefaults":    {func(p *Plan) { p.HarnessDefaults = true }, "harnessDefaults"},
		"maintain":           {func(p *Plan) { p.Actions[0] = Action{Kind: ActMaintain, DurationMs: -1} }, "actions[0]: maintain durationMs"},
		"compactionFailures": {func(p *Plan) { p.CompactionFailures = 1 }, "compactionFailures 1 needs a compactionDelayMs"},
		// Each answer within its bounds, together past what any run can hold.
		"deliveries": {func(p *Plan) {
			p.Answers = make([]Answer, DeliveriesMax/ChunksMax+1)
			for i := range p.Answers {
				p.Answers[i] = Answer{Chunks: ChunksMax, Finish: harness.FinishCompleted}
			}
		}, "answers[0] to answers[100] deliver more than 100000 text chunks and tool calls in all"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			p := valid()
			c.edit(&p)
			err := p.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.says)
		})
	}
}

func TestPlanValidationBoundsEverything(t *testing.T) {
	base := func() Plan {
		return Plan{Policy: harness.DefaultRetryPolicy(), HorizonMs: 1000, Answers: []Answer{{Chunks: 1, Finish: harness.FinishCompleted}}, Actions: []Action{{Kind: ActFollowup}}}
	}
	for name, edit := range map[string]func(p *Plan){
		"huge horizon":       func(p *Plan) { p.HorizonMs = 9223372036854 },
		"countless chunks":   func(p *Plan) { p.Answers[0].Chunks = 2_000_000_000 },
		"an eternal chunk":   func(p *Plan) { p.Answers[0].ChunkDelayMs = 1 << 40 },
		"action past end":    func(p *Plan) { p.Actions[0].AtMs = 5000 },
		"absurd retry-after": func(p *Plan) { p.Answers[0].Fail = &Fail{Code: "RATE_LIMIT", RetryAfterMs: 1e300} },
	} {
		p := base()
		edit(&p)
		assert.Error(t, p.Validate(), name)
	}
}
