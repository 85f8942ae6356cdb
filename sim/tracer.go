package sim

import (
	"context"
	"errors"
	"time"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
)

// tracer records what the simulator sees into a properties.Trace. Only one task runs at a time,
// so it needs no lock.
type tracer struct {
	scheduler *Scheduler
	trace     properties.Trace
	agent     *harness.Agent
	// exercised counts, per fault, how often it actually struck in this run.
	exercised    map[string]int
	toolsRunning int
}

func newTracer(s *Scheduler) *tracer {
	return &tracer{scheduler: s, exercised: map[string]int{}, trace: properties.Trace{IdleAtMs: -1}}
}

// nowMs is the virtual time in milliseconds since the start of the run.
func (t *tracer) nowMs() int64 { return t.scheduler.elapsed.Milliseconds() }

func (t *tracer) strike(fault string) {
	if fault != "" {
		t.exercised[fault]++
	}
}

func (t *tracer) agentError(e harness.AgentError) {
	record := properties.AgentError{AtMs: t.nowMs(), Turn: e.Turn, Source: e.Source, Err: harness.ErrorChain(e.Err)}
	var invariant *harness.InvariantError
	if errors.As(e.Err, &invariant) {
		record.Invariant = invariant.Rule
	}
	t.trace.AgentErrors = append(t.trace.AgentErrors, record)
}

// tracingRuntime is the runtime the harness sees: the scheduler, with every Sleep recorded. The
// harness sleeps only for llm-retry's backoff, so each recorded wait is one.
type tracingRuntime struct {
	*Scheduler
	tracer *tracer
}

func (r tracingRuntime) Sleep(d time.Duration, cancel ...context.Context) error {
	wait := properties.Wait{
		StartMs:   r.tracer.nowMs(),
		DelayMs:   float64(d) / float64(time.Millisecond),
		SeqBefore: int64(r.tracer.agent.Session().Len()),
	}
	err := r.Scheduler.Sleep(d, cancel...)
	wait.EndMs, wait.Cancelled = r.tracer.nowMs(), err != nil
	r.tracer.trace.Waits = append(r.tracer.trace.Waits, wait)
	return err
}
