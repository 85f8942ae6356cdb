package sim

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
)

// tracer records what the simulator sees into a properties.Trace. On the scheduler only one
// task runs at a time; on the production runtime (PlaySchedule) tasks run in parallel, so every
// change goes through mu.
type tracer struct {
	mu      sync.Mutex
	runtime harness.Runtime
	start   time.Time
	trace   properties.Trace
	agent   *harness.Agent
	// exercised counts, per fault, how often it actually struck in this run.
	exercised    map[string]int
	toolsRunning int
}

// newTracer records a run on rt, measuring virtual time from rt's clock at this moment.
func newTracer(rt harness.Runtime) *tracer {
	return &tracer{runtime: rt, start: rt.Clock().Now(), exercised: map[string]int{}, trace: properties.Trace{IdleAtMs: -1}}
}

// nowMs is the runtime's clock in Unix milliseconds: the time base of the session log, so trace
// and log compare directly. On the scheduler it starts at 0.
func (t *tracer) nowMs() int64 { return t.runtime.Clock().Now().UnixMilli() }

// sinceStartMs is the time since the run began, the time base of the plan.
func (t *tracer) sinceStartMs() int64 { return t.elapsed().Milliseconds() }

// elapsed is the time since the run began.
func (t *tracer) elapsed() time.Duration { return t.runtime.Clock().Now().Sub(t.start) }

func (t *tracer) strike(fault string) {
	if fault != "" {
		t.mu.Lock()
		t.exercised[fault]++
		t.mu.Unlock()
	}
}

func (t *tracer) agentError(e harness.AgentError) {
	record := properties.AgentError{AtMs: t.nowMs(), Turn: e.Turn, Source: e.Source, Err: harness.ErrorChain(e.Err)}
	var invariant *harness.InvariantError
	if errors.As(e.Err, &invariant) {
		record.Invariant = invariant.Rule
	}
	t.mu.Lock()
	t.trace.AgentErrors = append(t.trace.AgentErrors, record)
	t.mu.Unlock()
}

// tracingRuntime is the runtime the harness sees: the world's runtime, with every Sleep
// recorded. The harness sleeps only for llm-retry's backoff, so each recorded wait is one.
type tracingRuntime struct {
	harness.Runtime
	tracer *tracer
}

func (r tracingRuntime) Sleep(d time.Duration, cancel ...context.Context) error {
	wait := properties.Wait{
		StartMs:   r.tracer.nowMs(),
		DelayMs:   float64(d) / float64(time.Millisecond),
		SeqBefore: int64(r.tracer.agent.Session().Len()),
	}
	err := r.Runtime.Sleep(d, cancel...)
	wait.EndMs, wait.Cancelled = r.tracer.nowMs(), err != nil
	r.tracer.mu.Lock()
	r.tracer.trace.Waits = append(r.tracer.trace.Waits, wait)
	r.tracer.mu.Unlock()
	return err
}
