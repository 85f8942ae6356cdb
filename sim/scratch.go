package sim

import (
	"sync"

	"github.com/turnsim/turnsim/sim/sched"
)

// Buffers a sweep reuses from one seed to the next. A seed's run allocated about 90 KB, and with
// a live heap of about a megabyte the collector ran every 30 or so seeds, so its cost followed
// the bytes allocated, not what stayed live. The two largest buffers of a run, the simulated
// disk's copy of the session log (about 10 KB a seed, grown by doubling) and the JSON Lines log
// the digest and log-replays read (about 6 KB), are dead once the run's result is taken; a sweep
// (RunSeedAgent, the shrinker) hands them to the next seed instead of to the collector. So is the
// run's scheduler, with its tasks, queues and processes (about 3 KB and a dozen allocations):
// the next seed resets it (sched.Scheduler.Reset).
//
// Only what nobody can still see is reused: the Outcome a sweep looks at is dropped before its
// buffers are (and holds nothing of the scheduler but the RunReport, which Reset leaves alone),
// and a run whose task hung keeps its buffers and its scheduler (the abandoned goroutine may
// still write to the disk and run on the scheduler).

// scratchBytesMax bounds a buffer kept for reuse: a rare huge log should not stay allocated.
const scratchBytesMax = 64 << 10

// scratch holds one finished run's buffers for the next run.
type scratch struct {
	jsonl []byte // finishOutcome's encoding buffer
	// outcome is the run's Outcome while keep looks at it (runForResult), zero otherwise.
	outcome Outcome
	log     []byte // the disk's first file's buffer
	// scheduler is a finished run's, for the next run to reset, or nil.
	scheduler *sched.Scheduler
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// takeJSONL is a buffer for the JSON Lines log, empty, with room for at least size bytes.
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
	s.log = nil
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

// runForResult runs a schedule for what a sweep keeps of it and passes the Outcome to keep, which
// must not retain it (nor anything in it: the log's bytes are reused for the next run).
func runForResult(schedule Schedule, agent Agent, keep func(o *Outcome)) {
	s := scratchPool.Get().(*scratch)
	var w *world
	// The Outcome lives in the scratch, not in a variable of its own: handed to keep, a func
	// value, a local would escape, an allocation of the whole Outcome (about 770 bytes) a seed.
	o := &s.outcome
	w, *o = runWorldWith(schedule, agent, s)
	keep(o)
	if !hung(o.Report) {
		s.reclaim(w, o)
	}
	*o = Outcome{} // nothing of the run stays reachable from the pool
	scratchPool.Put(s)
}

// reclaim keeps the run's large buffers and its scheduler for the next run.
func (s *scratch) reclaim(w *world, o *Outcome) {
	s.scheduler = w.scheduler
	if cap(o.JSONL) <= scratchBytesMax {
		s.jsonl = o.JSONL[:0]
	}
	o.JSONL = nil
	if w.disk != nil {
		if f := w.disk.file(sessionLogPath); f != nil && cap(f.written) <= scratchBytesMax {
			s.log = f.written[:0]
			f.written = nil
		}
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
