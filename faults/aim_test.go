package faults

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
)

// Each aimed fault, alone in the swarm, plans the action that waits for its moment, and the plan
// is one the world can play.
func TestAimedFaultsPlanTheirActions(t *testing.T) {
	for _, fault := range []string{CancelAtTimer, CancelDuringTool, DisposeBetweenCheckAndWait, WakeDuringFailedTurn, PowerLossAfterCutBack, Preemption} {
		planned := 0
		for seed := int64(1); seed <= 100; seed++ {
			rng := NewRand(seed)
			plan := DrawPlan(rng, DrawSwarm(rng, []string{fault}))
			require.NoError(t, plan.Validate(), "%s seed %d", fault, seed)
			for _, a := range plan.Actions {
				if a.Fault == fault {
					planned++
				}
			}
			if plan.PreemptRate > 0 {
				assert.Equal(t, Preemption, fault)
				planned++
			}
		}
		assert.Greater(t, planned, 15, "%s: plans that aim it, of 100", fault)
	}
}

// An aimed action the world cannot play is refused, naming the field.
func TestBadAimedActionsAreRefused(t *testing.T) {
	for says, a := range map[string]Action{
		`at-timer timer "week"`:              {Kind: ActAtTimer, Timer: "week", Then: ActDispose},
		`at-timer then "followup"`:           {Kind: ActAtTimer, Timer: TimerBackoff, Then: ActFollowup},
		`during-tool afterMs -1`:             {Kind: ActDuringTool, AfterMs: -1, Then: ActCancel, Cause: harness.CauseUser},
		`cancel cause "" is not user`:        {Kind: ActDuringTool, Then: ActCancel},
		`at-site site "anywhere"`:            {Kind: ActAtSite, Site: "anywhere", Then: ActDispose},
		`at-site afterRefused "tool/result"`: {Kind: ActAtSite, Site: SiteDriverAfterTurn, AfterRefused: harness.TypeToolResult, Then: ActSteer},
		`a crash with failSync`:              {Kind: ActCrash, FailSync: true},
	} {
		err := a.validate()
		require.Error(t, err, says)
		assert.Contains(t, err.Error(), says)
	}
	assert.ErrorContains(t, Plan{Policy: SpecRetryPolicy(), PreemptRate: 2}.Validate(), "preemptRate 2 is outside [0, 1]")
}

// ParseAim reads what AimsHelp lists, and Apply adds actions the plan validates with.
func TestParseAndApplyAims(t *testing.T) {
	for _, s := range []string{"cancel-during-tool", "cancel-during-tool:issue_refund", "cancel-at-timer", "cancel-at-timer:tool", "dispose-between-check-and-wait", "wake-during-failed-turn", "power-loss-after-cut-back", "preemption"} {
		aim, err := ParseAim(s)
		require.NoError(t, err, s)
		assert.Equal(t, s, aim.String())
		rng := NewRand(3)
		plan := DrawPlan(rng, DrawSwarm(rng, nil))
		before := len(plan.Actions)
		aim.Apply(&plan, NewRand(4))
		require.NoError(t, plan.Validate(), s)
		assert.True(t, len(plan.Actions) > before || plan.PreemptRate == 1, s)
	}
	_, err := ParseAim("dispose-at-lunch")
	require.Error(t, err)
	assert.Contains(t, err.Error(), AimsHelp())
}
