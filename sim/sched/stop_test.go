package sched

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A model run on the scheduler (a herd's provider) reads the virtual time since the start, and
// may end the run with a finding of its own kind; the first finding is the one that stays.
func TestStopEndsTheRunWithTheCallersFinding(t *testing.T) {
	noLeak(t)
	var at time.Duration
	report := runOnce(Options{Seed: 1, Start: time.Unix(1000, 0)}, func(s *Scheduler) {
		s.Go("sleeper", func() { _ = s.Sleep(time.Hour) })
		_ = s.Sleep(1500 * time.Millisecond)
		at = s.Elapsed()
		s.Stop("request-limit", "the model's limit")
		s.Stop("second", "ignored: the run already has a finding")
		_ = s.Sleep(time.Second)
		t.Error("the stopping task ran on past its next yield")
	})
	assert.Equal(t, 1500*time.Millisecond, at)
	require.Len(t, report.Findings, 1)
	f := report.Findings[0]
	assert.Equal(t, "request-limit", f.Kind)
	assert.Equal(t, "the model's limit", f.Message)
	assert.Len(t, f.Tasks, 2, "every unfinished task is listed, as for the scheduler's own findings")
	assert.Equal(t, 1500*time.Millisecond, report.VirtualElapsed)
}
