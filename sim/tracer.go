package sim

import (
	"context"
	"errors"
	"math/bits"
	"sync"
	"time"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim/sched"
)

// tracer records what the simulator sees into a properties.Trace. On the scheduler only one
// task runs at a time; on the production runtime (PlaySchedule) tasks run in parallel, so every
// change goes through mu.
type tracer struct {
	mu      sync.Mutex
	runtime harness.Runtime
	start   time.Time
	// scheduler is the run's deterministic scheduler, whose clock the tracer reads directly (nil:
	// another runtime, read through its Clock), and startElapsed its virtual time at start.
	// Through the runtime, a reading was two interface calls and time arithmetic, and the world
	// reads the time some fifty times a schedule.
	scheduler    *sched.Scheduler
	startElapsed time.Duration
	trace        properties.Trace
	// struck holds a bit per fault of the catalogue (faultNames' order), set once it actually
	// struck in this run: bits, not a map, so it takes no allocation of its own and hashes no
	// name to read it back; and bits, not counts, since only whether a fault struck is reported
	// (counts were 344 bytes of a world, which then took the next size class).
	struck       faultSet
	toolsRunning int
	// toolOrder numbers tool starts and ends, for pool-limit's notion of "at once".
	toolOrder int64
	// asked holds the tool calls the world streamed, by their arguments (plannedcalls.go).
	asked []askedCall
	// aimer holds the plan's armed aimed actions (aim.go); nil when it has none.
	aimer *aimer
}

// newTracer records a run on rt, measuring virtual time from rt's clock at this moment.
func newTracer(rt harness.Runtime) *tracer {
	t := new(tracer)
	t.init(rt, nil)
	return t
}

// init makes t, zero, a tracer of a run on rt, as newTracer does: for a tracer that is part of
// a larger allocation (a world's, newWorld). scheduler is rt when rt is the scheduler (nil
// otherwise).
func (t *tracer) init(rt harness.Runtime, scheduler *sched.Scheduler) {
	t.runtime, t.start, t.trace.IdleAtMs = rt, rt.Clock().Now(), -1
	if scheduler != nil {
		t.scheduler, t.startElapsed = scheduler, scheduler.Elapsed()
	}
}

// nowMs is the runtime's clock in Unix milliseconds: the time base of the session log, so trace
// and log compare directly. On the scheduler it starts at 0.
func (t *tracer) nowMs() int64 {
	if t.scheduler != nil {
		return t.scheduler.Now().UnixMilli() // what its Clock reads
	}
	return t.runtime.Clock().Now().UnixMilli()
}

// sinceStartMs is the time since the run began, the time base of the plan.
func (t *tracer) sinceStartMs() int64 { return t.elapsed().Milliseconds() }

// elapsed is the time since the run began. On the scheduler, its clock reads its start plus its
// elapsed virtual time, so the difference of two readings is that of the elapsed times.
func (t *tracer) elapsed() time.Duration {
	if t.scheduler != nil {
		return t.scheduler.Elapsed() - t.startElapsed
	}
	return t.runtime.Clock().Now().Sub(t.start)
}

// record changes the trace under the lock.
func (t *tracer) record(change func(tr *properties.Trace)) {
	t.mu.Lock()
	change(&t.trace)
	t.mu.Unlock()
}

// strike counts a strike of fault, a catalogue name ("" and any other name count nothing: only
// the catalogue's faults are reported).
func (t *tracer) strike(fault string) {
	if i, ok := faultIndex[fault]; ok {
		t.mu.Lock()
		t.struck.add(i)
		t.mu.Unlock()
	}
}

// faultSet is a set of the catalogue's faults, by their place in it (faultIndex).
type faultSet [(faults.Count + 63) / 64]uint64

// add puts the i-th fault in the set. Unsigned, so that i/64 and i%64 are a shift and a mask (a
// signed division must round toward zero), on every strike.
func (s *faultSet) add(i int) { s[uint(i)/64] |= 1 << (uint(i) % 64) }

// appendNames appends the names of the faults in the set to names, in the catalogue's order:
// bit by bit, not a test of every fault.
func (s *faultSet) appendNames(names []string) []string {
	for w, word := range s {
		for ; word != 0; word &= word - 1 {
			names = append(names, faultNames[w*64+bits.TrailingZeros64(word)])
		}
	}
	return names
}

// len is how many faults the set holds.
func (s *faultSet) len() int {
	n := 0
	for _, word := range s {
		n += bits.OnesCount64(word)
	}
	return n
}

// recordsBuffered is the room the trace's agent errors and backoff waits start with, made at the
// first: of 2,000 default-mix schedules, 1,277 record an agent error and 1,402 a wait, and nine in
// ten of those four or fewer. Growing from one took up to two allocations more.
const recordsBuffered = 4

// agentError records e, reported when the log held seqAt events.
func (t *tracer) agentError(e harness.AgentError, seqAt int64) {
	record := properties.AgentError{AtMs: t.nowMs(), Turn: e.Turn, Step: e.Step, Source: e.Source, Err: harness.ErrorChain(e.Err), SeqAt: seqAt}
	// AsType, not As: As's target escaped to the heap, an allocation for every agent error.
	if invariant, ok := errors.AsType[*harness.InvariantError](e.Err); ok {
		record.Invariant = invariant.Rule
	}
	t.mu.Lock()
	if t.trace.AgentErrors == nil {
		t.trace.AgentErrors = make([]properties.AgentError, 0, recordsBuffered)
	}
	t.trace.AgentErrors = append(t.trace.AgentErrors, record)
	t.mu.Unlock()
}

// handlerFailed records that a request-error handler of the world's failed with err over req.
func (t *tracer) handlerFailed(req *harness.RequestError, err error) {
	failure := properties.HandlerFailure{AtMs: t.nowMs(), Turn: req.Turn, Step: req.Step, Attempt: req.Attempt, Err: err.Error()}
	t.mu.Lock()
	t.trace.HandlerFailures = append(t.trace.HandlerFailures, failure)
	t.mu.Unlock()
}

// shownBuffered is the room an incarnation's record of the events its observer was shown starts
// with: a session usually logs a few dozen.
const shownBuffered = 32

// observeFrom starts the record of what an incarnation's session observer is shown, attached when
// the log held from events, and returns its place in the trace.
func (t *tracer) observeFrom(from int64) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.trace.Observed = append(t.trace.Observed, properties.Observed{FromSeq: from, Shown: make([]int64, 0, shownBuffered)})
	return len(t.trace.Observed) - 1
}

// shown records that the observer of the incarnation at observed was shown event seq.
func (t *tracer) shown(observed int, seq int64) {
	t.mu.Lock()
	o := &t.trace.Observed[observed]
	o.Shown = append(o.Shown, seq)
	t.mu.Unlock()
}

// observedUp marks the last incarnation's record as up at the end of the run.
func (t *tracer) observedUp() {
	t.mu.Lock()
	if n := len(t.trace.Observed); n > 0 {
		t.trace.Observed[n-1].Up = true
	}
	t.mu.Unlock()
}

// tracingRuntime is the runtime the harness sees: the world's runtime, with every Sleep
// recorded. The harness sleeps only for llm-retry's backoff, so each recorded wait is one.
type tracingRuntime struct {
	harness.Runtime
	tracer *tracer
	world  *world // for the session log's length when a wait starts
	// preempter is Runtime, when it has preemption points (the scheduler's process); nil off it.
	preempter harness.Preempter
}

// Preempt is the harness's preemption point site: an aimed action waiting for it lands first
// (aim.go), then the world's runtime may switch tasks there.
func (r *tracingRuntime) Preempt(site string) {
	if r.tracer.aimer != nil {
		r.tracer.aimer.atSite(site)
	}
	if r.preempter != nil {
		r.preempter.Preempt(site)
	}
}

func (r *tracingRuntime) Sleep(d time.Duration, cancel ...context.Context) error {
	t := r.tracer
	if t.aimer != nil {
		t.aimer.timerStarted(faults.TimerBackoff, d)
	}
	wait := properties.Wait{
		StartMs:   t.nowMs(),
		EndMs:     -1,
		DelayMs:   float64(d) / float64(time.Millisecond),
		SeqBefore: r.world.logLen(),
	}
	var index int
	t.record(func(tr *properties.Trace) {
		if tr.Waits == nil {
			tr.Waits = make([]properties.Wait, 0, recordsBuffered)
		}
		tr.Waits = append(tr.Waits, wait)
		index = len(tr.Waits) - 1
	})
	err := r.Runtime.Sleep(d, cancel...) // a crash may end the task here: the wait stays open
	end := t.nowMs()
	t.record(func(tr *properties.Trace) { tr.Waits[index].EndMs, tr.Waits[index].Cancelled = end, err != nil })
	return err
}
