package properties_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
)

func TestDefinedPropertyRunsAfterTheCatalogue(t *testing.T) {
	noTurns := properties.Define("no-turns", "the agent never starts a turn", func(r *properties.Run, report *properties.Reporter) {
		for _, e := range r.Log {
			if _, ok := e.Data.(harness.TurnStart); ok {
				report.Errorf(e.Seq, e.Time, "turn started")
			}
		}
	})
	log := []harness.Event{{Seq: 1, Time: 5, Type: harness.TypeTurnStart, Data: harness.TurnStart{Turn: 1}}}
	found := properties.CheckWith(&properties.Run{Log: log, Trace: properties.Trace{IdleAtMs: -1}}, []properties.Property{noTurns})
	require.NotEmpty(t, found)
	last := found[len(found)-1]
	assert.Equal(t, properties.Violation{Property: "no-turns", Message: "turn started", Seq: 1, AtMs: 5}, last)
}

func TestDefineRefusesWhatCannotBeAProperty(t *testing.T) {
	check := func(*properties.Run, *properties.Reporter) {}
	assert.Panics(t, func() { properties.Define("", "doc", check) })
	assert.Panics(t, func() { properties.Define("x", "doc", nil) })
	assert.Panics(t, func() { properties.Define("liveness", "doc", check) }, "a catalogue name")
	assert.Panics(t, func() { properties.CheckWith(&properties.Run{}, []properties.Property{{Name: "hand-made"}}) })
}

// retry-budget allows one request more per retry a user's handler granted itself, and no more.
func TestRetryBudgetCountsHandlerRetries(t *testing.T) {
	run := func(granted int) []properties.Violation {
		r := &properties.Run{Traced: true, Trace: properties.Trace{IdleAtMs: -1}, Policy: harness.RetryPolicy{Mode: harness.ModeNormal, MaxRetries: 1}}
		for range 4 {
			r.Trace.Requests = append(r.Trace.Requests, properties.Request{Turn: 1, Step: 1, EndMs: -1})
		}
		for range granted {
			r.Trace.HandlerRetries = append(r.Trace.HandlerRetries, properties.HandlerRetry{Turn: 1, Step: 1})
		}
		var budget []properties.Violation
		for _, v := range properties.Check(r) {
			if v.Property == "retry-budget" {
				budget = append(budget, v)
			}
		}
		return budget
	}
	assert.Len(t, run(1), 1, "4 requests: 1 + 1 retry + 1 fallback allows 3")
	assert.Empty(t, run(2))
}
