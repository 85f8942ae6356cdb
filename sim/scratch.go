package sim

import (
	"sync"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/internal/spare"
	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim/sched"
)

// Buffers a sweep reuses from one seed to the next. A seed's run allocates its world, its
// scheduler, its trace and two copies of its log (the simulated disk's, and the JSON Lines the
// digest and log-replays read), all dead once the run's result is taken; with a live heap of
// a megabyte or so, the collector's work follows what a seed allocates rather than what stays
// live. So a sweep (RunSeedAgent, the shrinker) hands the next seed the largest of them instead
// of the collector: the disk's buffer and the JSON Lines buffer, the scheduler with its tasks,
// queues and processes (reset: sched.Scheduler.Reset), the world's parts and the arrays of its
// trace and provider, in which the next seed's world is built.
//
// Only what nobody can still see is reused: the Outcome a sweep looks at is dropped before its
// buffers are (and holds nothing of the scheduler but the RunReport, which Reset leaves alone),
// and a run whose task hung keeps its buffers, world and scheduler (the abandoned goroutine may
// still write to the disk and run on the scheduler).

// scratchBytesMax bounds a buffer kept for reuse: a rare huge log should not stay allocated.
const scratchBytesMax = 64 << 10

// scratch holds one finished run's buffers for the next run.
type scratch struct {
	jsonl []byte // finishOutcome's encoding buffer
	// outcome is the run's Outcome while keep looks at it (runForResult), zero otherwise.
	outcome Outcome
	log     []byte // the disk's first file's buffer
	// givenLog is the buffer takeLog gave the current run: the disk may trade it for a smaller
	// copy (a power loss's truncation), and reclaim then keeps the larger of the two.
	givenLog []byte
	// scheduler is a finished run's, for the next run to reset, or nil.
	scheduler *sched.Scheduler
	// parts is the world the scratch's current or last run was built in (newWorldWith), or nil;
	// incarnation its first incarnation's parts (startIncarnation) and llmErrors its provider's
	// first array of errors (newLlmError). They stay here while the run uses them: the scratch
	// forgets them when the run hangs (forgetGiven), and clears them for the next run otherwise.
	parts       *worldParts
	incarnation *incarnationParts
	llmErrors   []harness.LlmError
	// trace holds a finished run's trace arrays, empty and cleared, for the next run's records;
	// messages and asked its provider's and tracer's arrays (requestMessages, askCall); messages
	// stays here while the run uses it.
	trace    properties.Trace
	messages []properties.RequestMessage
	asked    []askedCall
	// tools are turnsim's own tools a run made (appendPlanTools), and toolsRuntime and
	// toolsTracer what they were made for: each closes over only those two, so a world built on
	// the same scheduler, in the same parts, has them as they are (lendTools).
	tools        [plannedTools]harness.Tool
	toolsRuntime harness.Runtime
	toolsTracer  *tracer
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// takeJSONL is a buffer for the JSON Lines log, empty, with space for at least size bytes.
func (s *scratch) takeJSONL(size int) []byte {
	if s == nil || cap(s.jsonl) < size {
		return make([]byte, 0, size)
	}
	b := s.jsonl[:0]
	s.jsonl = nil
	return b
}

// takeLog is an empty buffer for a file's bytes, or nil.
func (s *scratch) takeLog() []byte {
	if s == nil {
		return nil
	}
	b := s.log[:0]
	s.givenLog, s.log = s.log, nil
	return b
}

// takeScheduler is a scheduler for a run with opts: the one an earlier run left, reset, or a new
// one.
func (s *scratch) takeScheduler(opts sched.Options) *sched.Scheduler {
	if s == nil || s.scheduler == nil {
		return sched.New(opts)
	}
	scheduler := s.scheduler
	s.scheduler = nil
	scheduler.Reset(opts)
	return scheduler
}

// takeParts is a world's parts, zero: those of the scratch's last run (reclaim zeroed them), or
// new ones it keeps.
func (s *scratch) takeParts() *worldParts {
	if s == nil {
		return new(worldParts)
	}
	return kept(&s.parts)
}

// takeIncarnation is an incarnation's parts, zero: those of the scratch's last run's first
// incarnation (reclaim zeroed them), or new ones it keeps.
func (s *scratch) takeIncarnation() *incarnationParts {
	if s == nil {
		return new(incarnationParts)
	}
	return kept(&s.incarnation)
}

// kept is *p, made first if the scratch holds none: from then on the scratch keeps it.
func kept[T any](p **T) *T {
	if *p == nil {
		*p = new(T)
	}
	return *p
}

// forgetGiven drops what the scratch gave its run for good: a hung task of the run may still use
// it.
func (s *scratch) forgetGiven() {
	s.parts, s.incarnation, s.llmErrors, s.givenLog, s.messages = nil, nil, nil, nil, nil
	s.tools, s.toolsRuntime, s.toolsTracer = [plannedTools]harness.Tool{}, nil, nil
}

// lendTools appends to tools, a new world's on rt traced by t, turnsim's own tools an earlier
// run made for the same rt and t, and returns them; or returns tools as it is.
func (s *scratch) lendTools(tools []harness.Tool, rt harness.Runtime, t *tracer) []harness.Tool {
	if s == nil || s.toolsTracer != t || s.toolsRuntime != rt {
		return tools
	}
	return append(tools, s.tools[:]...)
}

// lendTrace hands the arrays an earlier run's trace left to the tracer t and provider p of a new
// run, empty but not nil: where a record was made at the first (make), it goes into the array
// handed over. settleTrace takes back those the run left empty, so that the trace it hands on is
// what a fresh run's is: nil where nothing was recorded.
func (s *scratch) lendTrace(t *tracer, p *planProvider) {
	if s == nil {
		return
	}
	t.trace.Requests, s.trace.Requests = s.trace.Requests, nil
	t.trace.Waits, s.trace.Waits = s.trace.Waits, nil
	t.trace.Tools, s.trace.Tools = s.trace.Tools, nil
	t.trace.Cancels, s.trace.Cancels = s.trace.Cancels, nil
	t.trace.Sends, s.trace.Sends = s.trace.Sends, nil
	t.trace.AgentErrors, s.trace.AgentErrors = s.trace.AgentErrors, nil
	t.trace.Draws, s.trace.Draws = s.trace.Draws, nil
	p.messages = s.messages // kept here too: the run may trade it for a larger array, or a fresh one
	if s.llmErrors == nil {
		s.llmErrors = make([]harness.LlmError, llmErrorsBuffered)
	}
	p.llmErrors = s.llmErrors
	t.asked, s.asked = s.asked, nil
}

// settleTrace takes back the arrays handed to t (lendTrace) that its run left empty, leaving nil
// in their place. Under the tracer's lock: a hung task of the run may still record.
func (s *scratch) settleTrace(t *tracer) {
	if s == nil {
		return
	}
	t.mu.Lock()
	tr := &t.trace
	tr.Requests, s.trace.Requests = settle(tr.Requests, s.trace.Requests)
	tr.Waits, s.trace.Waits = settle(tr.Waits, s.trace.Waits)
	tr.Tools, s.trace.Tools = settle(tr.Tools, s.trace.Tools)
	tr.Cancels, s.trace.Cancels = settle(tr.Cancels, s.trace.Cancels)
	tr.Sends, s.trace.Sends = settle(tr.Sends, s.trace.Sends)
	tr.AgentErrors, s.trace.AgentErrors = settle(tr.AgentErrors, s.trace.AgentErrors)
	tr.Draws, s.trace.Draws = settle(tr.Draws, s.trace.Draws)
	t.mu.Unlock()
}

// settle is (nil, the empty array handed over) when a run recorded nothing in it, else (its
// records, kept).
func settle[T any](records, kept []T) ([]T, []T) {
	if len(records) == 0 {
		return nil, records
	}
	return records, kept
}

// keepRecords keeps a run's array of records, emptied, in *kept for the next run; an array the
// run did not have (nil: settleTrace took back the one handed over and left empty) leaves *kept as it is.
func keepRecords[T any](kept *[]T, records []T) {
	if records != nil {
		*kept = spare.Emptied(records)
	}
}

// reuseLarger is the larger of two arrays of records, given and what the run ended with (the
// same array, or one the run made when given was too small or its records could not extend it),
// for reuse: Emptied clears it to its capacity, since the run may have written given past the
// other's length.
func reuseLarger[T any](given, final []T) []T {
	if cap(final) > cap(given) {
		given = final
	}
	return spare.Emptied(given)
}

// runForResult runs a schedule for what a sweep keeps of it and passes the Outcome to keep, which
// must not retain it (nor anything in it: the log's bytes and the trace's arrays are reused for the
// next run; what keep keeps, violations, coverage and outcome kinds, is the run's own memory).
func runForResult(schedule Schedule, agent Agent, keep func(o *Outcome)) {
	s := scratchPool.Get().(*scratch)
	s.runFor(schedule, agent, keep)
	scratchPool.Put(s)
}

// runFor is runForResult on the scratch s: it gives the run what s kept, and afterwards takes
// back what the run is done with, or, when a task of it hung (and may still use what it was
// given), forgets all it gave.
func (s *scratch) runFor(schedule Schedule, agent Agent, keep func(o *Outcome)) {
	// The Outcome lives in the scratch too: a seed's is dead once keep has looked at it.
	o := &s.outcome
	w := runWorldInto(schedule, agent, s, o)
	keep(o)
	if !hung(o.Report) {
		s.reclaim(w, o)
	} else {
		s.forgetGiven()
	}
	// Nothing of the run stays reachable from the scratch but what the kept scheduler's unused
	// tasks, queues and processes hold until a later run takes them again (each is cleared
	// then): reclaim zeroed the world's parts.
	*o = Outcome{}
}

// reclaim keeps the run's large buffers, the arrays of its trace and its scheduler for the next
// run, with what it gave the run (its world's and first incarnation's parts, its errors' array).
func (s *scratch) reclaim(w *world, o *Outcome) {
	s.scheduler = w.scheduler
	tr := &w.tracer.trace
	keepRecords(&s.trace.Requests, tr.Requests)
	keepRecords(&s.trace.Waits, tr.Waits)
	keepRecords(&s.trace.Tools, tr.Tools)
	keepRecords(&s.trace.Cancels, tr.Cancels)
	keepRecords(&s.trace.Sends, tr.Sends)
	keepRecords(&s.trace.AgentErrors, tr.AgentErrors)
	keepRecords(&s.trace.Draws, tr.Draws)
	s.messages = reuseLarger(s.messages, w.provider.messages)
	keepRecords(&s.asked, w.tracer.asked)
	clear(s.llmErrors) // the run's errors: the next run's provider cuts its own from the array
	if len(w.tools) == plannedTools {
		s.tools, s.toolsRuntime, s.toolsTracer = [plannedTools]harness.Tool(w.tools), w.rt, w.tracer
	}
	if cap(o.JSONL) <= scratchBytesMax {
		s.jsonl = o.JSONL[:0]
	}
	o.JSONL = nil
	if w.disk != nil {
		if f := w.disk.file(sessionLogPath); f != nil && cap(f.written) <= scratchBytesMax {
			s.log = f.written[:0]
			f.written = nil
		}
		if cap(s.givenLog) > cap(s.log) {
			s.log = s.givenLog[:0]
		}
	}
	s.givenLog = nil
	// Zeroed now, not when the next run takes them: a world (its agent, log, disk) is not kept
	// alive by a scratch waiting in the pool. In place: a generic zeroing would copy a zero value.
	*s.parts = worldParts{}
	if s.incarnation != nil {
		*s.incarnation = incarnationParts{}
	}
}

// hung reports whether a task of the run was abandoned as hung.
func hung(report *sched.RunReport) bool {
	for _, f := range report.Findings {
		if f.Kind == sched.FindingHang {
			return true
		}
	}
	return false
}
