package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/sim/sched"
)

// A seed run with buffers an earlier seed left (RunSeed, through runForResult) gives what a run
// with fresh ones does (RunSchedule): the reused buffers carry stale bytes past their length, and
// nothing may read them. Seeds run in an order that hands each one a different predecessor's
// buffers, crash seeds (which write the disk) among them.
func TestReusedBuffersChangeNothing(t *testing.T) {
	crashes := 0
	for i := range sweep(300) {
		seed := int64(1 + (i*37)%sweep(300))
		got := RunSeed(seed, nil, false)
		w, want := runWorld(NewSchedule(seed, nil), Agent{})
		if w.disk != nil {
			crashes++
		}
		require.Equal(t, want.Digest, got.Digest, "seed %d", seed)
		assert.Equal(t, want.Violations, got.Violations, "seed %d", seed)
		assert.Equal(t, want.Exercised, got.Exercised, "seed %d", seed)
	}
	assert.Positive(t, crashes, "no crash seed: the disk's reused buffer went untested")
}

// reclaim takes the buffers only from a run that is over, and takeJSONL never hands out a buffer
// shorter than asked.
func TestScratchGivesWhatFits(t *testing.T) {
	var s *scratch
	assert.Equal(t, 100, cap(s.takeJSONL(100)), "no scratch: a fresh buffer")
	assert.Nil(t, s.takeLog())
	s = &scratch{jsonl: make([]byte, 5, 50), log: make([]byte, 7, 70)}
	assert.Equal(t, 200, cap(s.takeJSONL(200)), "too small to give: a fresh buffer")
	b := s.takeJSONL(40)
	assert.Equal(t, 0, len(b))
	assert.Equal(t, 50, cap(b))
	assert.Nil(t, s.jsonl, "given once, not twice")
	l := s.takeLog()
	assert.Equal(t, 0, len(l))
	assert.Equal(t, 70, cap(l))
	assert.Nil(t, s.takeLog())
}

// mixes are fault mixes whose runs record different parts of the trace: the default one, crashes
// and power losses (the disk, restarts), tool calls, and sends and cancels racing.
var mixes = [][]string{
	nil,
	{faults.Crash},
	{faults.PowerLoss, faults.Followup, faults.Steer, faults.ToolCalls, faults.ToolLatency, faults.SlowStream},
	{faults.ToolCalls, faults.ToolLatency},
}

// A run in a world, trace arrays and provider buffers an earlier run left (runForResult) gives
// the whole Outcome a fresh run does: trace (nil where nothing was recorded, as fresh), log,
// JSON Lines, digest, violations, coverage. Seeds run in an order that hands each one a different
// predecessor's buffers, and mixes alternate so that a run gets arrays of another mix's shape.
func TestReusedWorldChangesNothing(t *testing.T) {
	n := sweep(200)
	for i := range n {
		for _, mix := range mixes {
			schedule := NewSchedule(int64(1+(i*37)%n), mix)
			runForResult(schedule, Agent{}, func(o *Outcome) {
				want := RunSchedule(schedule)
				require.Equal(t, want, *o, "seed %d, mix %v", schedule.Seed, mix)
			})
		}
	}
}

// What a sweep keeps of a seed (RunSeed's SeedResult: violations, coverage, outcome reasons) is
// its own memory: later seeds run through the same scratch leave it as it was.
func TestRetainedResultsOutliveTheScratch(t *testing.T) {
	n := sweep(200)
	type kept struct {
		result SeedResult
		mix    []string
	}
	var results []kept
	for i := range n {
		mix := mixes[i%len(mixes)]
		results = append(results, kept{RunSeed(int64(1+i), mix, false), mix})
	}
	for _, k := range results {
		want := RunSchedule(NewSchedule(k.result.Seed, k.mix))
		assert.Equal(t, want.Violations, k.result.Violations, "seed %d", k.result.Seed)
		assert.Equal(t, want.Exercised, k.result.Exercised, "seed %d", k.result.Seed)
		assert.Equal(t, want.Outcomes, k.result.Outcomes, "seed %d", k.result.Seed)
		assert.Equal(t, want.Digest, k.result.Digest, "seed %d", k.result.Seed)
	}
}

// Turnsim's tools close over a runtime and a tracer: lendTools hands them only to a world on the
// same two, and a hung run's scratch forgets them.
func TestScratchGivesToolsOnlyToTheirWorld(t *testing.T) {
	rt := sched.New(sched.Options{Seed: 1})
	var tr, other tracer
	s := &scratch{toolsRuntime: rt, toolsTracer: &tr}
	s.tools = [plannedTools]harness.Tool(appendPlanTools(nil, rt, &tr))
	tools := make([]harness.Tool, 0, plannedTools)
	assert.Len(t, s.lendTools(tools, rt, &tr), plannedTools)
	assert.Empty(t, s.lendTools(tools, rt, &other), "another tracer")
	assert.Empty(t, s.lendTools(tools, sched.New(sched.Options{Seed: 1}), &tr), "another runtime")
	assert.Empty(t, (*scratch)(nil).lendTools(tools, rt, &tr), "no scratch")
	s.forgetGiven()
	assert.Empty(t, s.lendTools(tools, rt, &tr), "forgotten")
}

// A run whose task hung may still use what its scratch gave it: the scratch forgets all of it
// (the world's and first incarnation's parts, the arrays for errors and messages, the log buffer, the
// tools) and keeps no scheduler, so the next run on it builds its own. A run that did not hang
// gives them back.
func TestAHungRunsScratchGivesNothingAgain(t *testing.T) {
	schedule := NewSchedule(3, nil)
	s := new(scratch)
	s.runFor(schedule, Agent{}, func(o *Outcome) {})
	require.NotNil(t, s.parts, "a run that did not hang gives its parts back")
	require.NotNil(t, s.scheduler, "and its scheduler")
	parts, scheduler := s.parts, s.scheduler

	var givenParts *worldParts
	s.runFor(schedule, Agent{}, func(o *Outcome) {
		givenParts = s.parts
		o.Report = &sched.RunReport{Findings: []sched.Finding{{Kind: sched.FindingHang}}}
	})
	assert.Same(t, parts, givenParts, "the second run was given the first run's parts")
	assert.Nil(t, s.parts)
	assert.Nil(t, s.incarnation)
	assert.Nil(t, s.llmErrors)
	assert.Nil(t, s.messages)
	assert.Nil(t, s.scheduler)
	assert.Nil(t, s.log)
	assert.Nil(t, s.givenLog)
	assert.Equal(t, [plannedTools]harness.Tool{}, s.tools)
	assert.Nil(t, s.toolsRuntime)
	assert.Nil(t, s.toolsTracer)

	s.runFor(schedule, Agent{}, func(o *Outcome) {})
	assert.NotSame(t, parts, s.parts, "the next run built its own parts")
	assert.NotSame(t, scheduler, s.scheduler, "and its own scheduler")
}
