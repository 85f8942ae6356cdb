package sim_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/sim/sched"
)

// Each aim strikes in a good share of the seeds it is pointed at (the world's own record of the
// moment), the default agent keeps every property through it, and a seed replays the same with it.
func TestAimsStrikeTheirMoment(t *testing.T) {
	cases := []struct {
		aim      string
		strikesN int // of 40 seeds, at least
	}{
		{faults.CancelDuringTool, 10},
		{faults.CancelAtTimer + ":backoff", 20},
		{faults.CancelAtTimer + ":chunk", 30},
		{faults.DisposeBetweenCheckAndWait, 20},
		{faults.WakeDuringFailedTurn, 20},
		{faults.PowerLossAfterCutBack, 15}, // about two in five: it needs an append whose sync fails
		{faults.Preemption, 5},
	}
	for _, c := range cases {
		t.Run(c.aim, func(t *testing.T) {
			agent := sim.Agent{Aim: c.aim}
			require.NoError(t, agent.Validate())
			aim, err := faults.ParseAim(c.aim)
			require.NoError(t, err)
			struck := 0
			for seed := int64(1); seed <= 40; seed++ {
				r := sim.RunSeedAgent(seed, nil, seed <= 5, agent)
				assert.Empty(t, r.Violations, "seed %d", seed)
				if slices.Contains(r.Exercised, aim.Fault) {
					struck++
				}
			}
			assert.GreaterOrEqual(t, struck, c.strikesN, "seeds of 40 in which %s struck", c.aim)
		})
	}
}

// An aim is part of the seed's schedule: its actions are in the plan, so a saved or shrunk
// schedule replays them, and the seed's own draws are left as they were but for what the aim
// needs (here, every third answer asking for a call, and the user asking again after each cancel).
func TestAimIsPartOfTheSchedule(t *testing.T) {
	plain := sim.NewSchedule(7, nil)
	aimed := sim.Agent{Aim: faults.CancelDuringTool + ":lookup"}.Schedule(7, nil)
	require.NoError(t, aimed.Validate())
	assert.Equal(t, plain.Plan.Policy, aimed.Plan.Policy)
	for i := range aimed.Plan.Answers {
		if i%3 == 0 {
			assert.NotEmpty(t, aimed.Plan.Answers[i].Calls, "answer %d", i)
		} else {
			assert.Equal(t, plain.Plan.Answers[i], aimed.Plan.Answers[i], "answer %d", i)
		}
	}
	assert.Equal(t, len(plain.Plan.Actions)+4, len(aimed.Plan.Actions))
	aimedAt := func(p faults.Plan) (lookup, other int) {
		for _, a := range p.Actions {
			switch {
			case a.Kind == faults.ActDuringTool && a.Tool == "lookup":
				lookup++
			case a.Kind == faults.ActDuringTool:
				other++
			}
		}
		return lookup, other
	}
	plainLookup, plainOther := aimedAt(plain.Plan)
	lookup, other := aimedAt(aimed.Plan)
	assert.Zero(t, plainLookup)
	assert.Equal(t, 2, lookup, "the aim adds its two cancels during the named tool")
	assert.Equal(t, plainOther, other, "the seed's own during-tool actions (if its swarm drew the fault) stay as they were")
	assert.Contains(t, aimed.Swarm, faults.CancelDuringTool)
}

// A bad aim is refused once, naming it and listing the valid ones.
func TestBadAimIsRefused(t *testing.T) {
	for aim, says := range map[string]string{
		"cancel-during-lunch":        `aim "cancel-during-lunch" is not one of these`,
		"cancel-at-timer:week":       `timer "week" is not one of backoff, tool, chunk`,
		"wake-during-failed-turn:up": "wake-during-failed-turn takes no parameter",
	} {
		err := sim.Agent{Aim: aim}.Validate()
		require.ErrorIs(t, err, sim.ErrConfig, aim)
		assert.Contains(t, err.Error(), says)
	}
	err := sim.Agent{Aim: "nonsense"}.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), faults.CancelDuringTool+"[:TOOL]", "the valid aims are listed")
	s := sim.RunSeeds(sim.RunOptions{Start: 1, Count: 3, Agent: sim.Agent{Aim: "nonsense"}})
	assert.Contains(t, s.ConfigError, `aim "nonsense"`)
	assert.Zero(t, s.Seeds)
}

// State made in PerSeed lives as long as the seed's world: every incarnation's tools, across
// crashes, share it, and the next seed gets fresh state.
// The tools of a PerSeed agent are measured as a plain agent's are: Check's coverage and its
// slow-tool warnings see them.
func TestPerSeedToolsAreTimed(t *testing.T) {
	agent := sim.Agent{PerSeed: func() sim.Agent {
		return sim.Agent{Tools: func(rt harness.Runtime) []harness.Tool {
			return []harness.Tool{{Name: "note", Parallel: true, Run: func(ctx context.Context, _ string) (string, error) {
				return "noted", rt.Sleep(5*time.Millisecond, ctx)
			}}}
		}}
	}}
	timed, times := sim.TimeTools(agent)
	for seed := int64(1); seed <= 50; seed++ {
		sim.RunScheduleAgent(sim.NewSchedule(seed, []string{faults.ToolCalls}), timed)
	}
	coverage := times.Coverage()
	require.Len(t, coverage, 1)
	assert.Equal(t, "note", coverage[0].Name)
	assert.Positive(t, coverage[0].Runs)
}

func TestPerSeedStateOutlivesCrashes(t *testing.T) {
	type seedState struct{ incarnations, calls atomic.Int64 }
	var made []*seedState
	agent := sim.Agent{PerSeed: func() sim.Agent {
		state := &seedState{}
		made = append(made, state)
		return sim.Agent{
			Tools: func(rt harness.Runtime) []harness.Tool {
				state.incarnations.Add(1)
				return []harness.Tool{{Name: "note", Parallel: true, Run: func(ctx context.Context, _ string) (string, error) {
					state.calls.Add(1)
					return "noted", rt.Sleep(5*time.Millisecond, ctx)
				}}}
			},
		}
	}}
	require.NoError(t, agent.Validate())
	made = nil
	crashed := false
	for seed := int64(1); seed <= 200 && !crashed; seed++ {
		s := sim.NewSchedule(seed, []string{faults.Crash, faults.ToolCalls})
		o := sim.RunScheduleAgent(s, agent)
		assert.Empty(t, o.Violations, "seed %d", seed)
		require.NotEmpty(t, made)
		state := made[len(made)-1]
		if restarts := len(o.Trace.Restarts); restarts > 0 && state.calls.Load() > 0 {
			crashed = true
			// one incarnation per start, plus the world's look at the tools' names
			assert.Equal(t, int64(restarts+2), state.incarnations.Load(), "seed %d: one state across every incarnation", seed)
		}
	}
	assert.True(t, crashed, "a seed crashed the agent after its tool ran")
	assert.Greater(t, len(made), 1, "each seed has its own state")
}

// PerSeed stands for the whole agent: the other fields must be left to what it returns.
func TestPerSeedIsTheWholeAgent(t *testing.T) {
	tools := func(harness.Runtime) []harness.Tool { return nil }
	err := sim.Agent{PerSeed: func() sim.Agent { return sim.Agent{} }, Tools: tools}.Validate()
	require.ErrorIs(t, err, sim.ErrConfig)
	assert.Contains(t, err.Error(), "PerSeed is set")
	err = sim.Agent{PerSeed: func() sim.Agent { return sim.Agent{Aim: faults.Preemption} }}.Validate()
	require.ErrorIs(t, err, sim.ErrConfig)
	assert.Contains(t, err.Error(), "PerSeed returned an Agent with PerSeed or Aim set")
	err = sim.Agent{PerSeed: func() sim.Agent { return sim.Agent{MaxParallelToolCalls: -1} }}.Validate()
	require.ErrorIs(t, err, sim.ErrConfig, "what PerSeed returns is validated")
}

// A user's tool that never lets its step go on (it yields forever without virtual time moving)
// is a livelock: the seed ends at its budget of virtual events, a run-completes violation, in
// well under a second of wall time.
func TestLivelockEndsAtTheEventBudget(t *testing.T) {
	spin := sim.Agent{Tools: func(rt harness.Runtime) []harness.Tool {
		return []harness.Tool{{Name: "spin", Parallel: true, Run: func(context.Context, string) (string, error) {
			for {
				rt.Sleep(0)
			}
		}}}
	}}
	for seed := int64(1); seed <= 100; seed++ {
		began := time.Now()
		o := sim.RunScheduleAgent(sim.NewSchedule(seed, []string{faults.ToolCalls}), spin)
		if len(o.Report.Findings) == 0 {
			continue // the spinning tool never ran: no answer asked for it before a cancel
		}
		assert.True(t, slices.ContainsFunc(o.Violations, func(v properties.Violation) bool { return v.Property == "run-completes" }))
		assert.Equal(t, sched.FindingEventLimit, o.Report.Findings[0].Kind, "ended by its budget of virtual events, not by a wall-clock or virtual-time limit")
		t.Logf("seed %d: %s after %d handoffs, %v", seed, o.Report.Findings[0].Kind, o.Report.Handoffs, time.Since(began))
		return
	}
	t.Fatal("the spinning tool never ran in 100 seeds")
}
