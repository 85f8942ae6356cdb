package sched

// The deterministic scheduler: the simulator's harness.Runtime.
//
// Model: Temporal's Go SDK workflow dispatcher, on coroutines. Every task runs on its own
// coroutine (iter.Pull: a goroutine that runs only when switched to), but only one holds the baton
// at a time. A task runs until it enters a runtime primitive (Sleep, a Get that must wait, Go) or
// returns; then it records why it stopped (its block site) and, still holding the baton, runs the
// scheduling step itself: it picks the next task, leaves it in baton and switches back to the
// driver (driver.go), a goroutine that does nothing but switch to the task in baton. Each such
// exchange is one handoff, and costs two coroutine switches, with no run queue and no other
// thread woken (a channel send to the next task's goroutine, as before, woke the other core for
// every handoff); a task that picks itself goes on without any. Run's goroutine starts the driver and waits for the run to be over
// (on the events channel) or for the watchdog's report of a hang. Only the baton holder touches the
// scheduler's state, so nothing here needs a lock: the coroutine switches, the go statements
// and the channel operations order every access.
//
// What makes a run reproducible:
//   - the next task is drawn by a picker from the runnable tasks listed in creation order, with a
//     random source (splitmix.Rand: SplitMix64) seeded from Options.Seed (never the
//     global one);
//   - virtual time moves only when no task is runnable, straight to the earliest timer; all timers
//     due at that instant become runnable together and the picker orders them;
//   - contexts are checked by the loop itself (ctx.Err() on every parked task before each pick),
//     never by context.AfterFunc or any goroutine the scheduler does not own, so a cancellation
//     wakes its waiter at the virtual instant the cancelling task yields.
//
// Ending early (a finding) unwinds every unfinished task: the killing flag is set and the driver
// resumes each parked task once, so the primitive it is parked in calls runtime.Goexit. Its
// deferred functions run; any primitive they call Goexits at once (Go starts nothing, Put drops
// its item). The driver resumes the tasks in turn, and ends the coroutines of tasks that exited
// (zombies.go) before it hands the baton back, so when Run returns no task goroutine of the run is
// left (but for a run that made more zombies than a batch, whose full batches end on goroutines
// of their own, and a task abandoned as hung).
//
// The one wall-clock element is the watchdog (watchdog.go). It only ever reports a hang, never
// decides the order of events, so it cannot make two runs of one seed differ unless one of them
// hangs.
//
// Misuse: the primitives must be called from a task of this scheduler. Outside Run no task is
// current and they panic; from a goroutine the scheduler did not start while a task runs, they
// cannot be detected and would corrupt the run (such a goroutine also escapes the scheduler's
// control entirely, which is why the harness starts goroutines only through Runtime.Go). Contexts
// passed to the primitives must be cancelled by tasks, not by wall-clock deadlines
// (context.WithTimeout), or the run stops being reproducible. A task must not lock its goroutine
// to its thread (runtime.LockOSThread) and then park in a primitive: the runtime cannot switch a
// locked coroutine from another thread, and throws (a fatal error, not a panic).

import (
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/internal/spare"
	"github.com/turnsim/turnsim/internal/splitmix"
)

// Options configure one run. The zero value is usable: seed 0, epoch at Unix 0, no
// virtual-time limit, a million handoffs and a ten-second watchdog.
type Options struct {
	// Seed seeds the scheduling random source; the same seed and task code give the same run.
	Seed int64
	// Start is the virtual epoch, the clock's reading when the run begins. The zero value means
	// time.Unix(0, 0) in UTC, so that formatted times do not depend on the machine's time zone.
	Start time.Time
	// MaxVirtualTime bounds the simulated duration: a timer due after Start+MaxVirtualTime ends the
	// run with a "virtual-time-limit" finding, so a livelock of ever-retrying timers cannot run
	// forever. Zero or negative means no limit.
	MaxVirtualTime time.Duration
	// MaxEvents bounds the run's events: its scheduling decisions, preemption points and the
	// events its caller counts (CountEvent); needing one more is an "event-limit" finding, which
	// catches livelocks that never advance virtual time. Zero or negative means 1,000,000.
	MaxEvents int
	// MaxTasks bounds the unfinished tasks of the run; one more is a "task-limit" finding, which
	// catches a livelock that spawns tasks faster than they finish (under PCT a spawner with the
	// top priority starves its children, and every pick then scans them all). Zero or negative
	// means 100,000.
	MaxTasks int
	// PCTDepth, when positive, picks with PCT of that depth (priorities and depth-1 change
	// points, see pctPicker) instead of uniformly.
	PCTDepth int
	// PreemptRate is the chance that a task reaching a preemption point (Preempt) gives way to
	// another runnable task, drawn uniformly from the others, before the uniform draw among all
	// of them decides: the aim of a swarm at the harness's check-then-lock windows. Zero: only
	// the uniform draw. PCT ignores it (it aims with change points of its own).
	PreemptRate float64
	// Watchdog is the wall-clock time a task may run without yielding before the run ends with a
	// "hang" finding (the task blocked outside the runtime, on a raw channel, a mutex or I/O, or
	// it spins). It only ever produces that report; it decides nothing else. Zero or negative
	// means ten seconds.
	Watchdog time.Duration
	// MaxWall is the wall-clock time the whole run may take: past it, the run ends at its next
	// scheduling decision or preemption point with a "wall-time-limit" finding. A backstop for a
	// run slow in a way no count bounds; like the watchdog it only reports, and it can only make
	// two runs of one seed differ when one of them runs that long. Zero or negative: no limit.
	MaxWall time.Duration
}

// Defaults for the zero fields of Options.
const (
	defaultMaxEvents = 1_000_000
	defaultMaxTasks  = 100_000
	defaultWatchdog  = 10 * time.Second
)

// Scheduler runs tasks one at a time in a seeded order on virtual time. It implements
// harness.Runtime, so the harness's turn loop runs on it unchanged. A Scheduler serves a single
// Run at a time; make one per concurrent run, so runs never share state and can go in parallel,
// and Reset it for the next run, or make a new one.
type Scheduler struct {
	opts  Options
	start time.Time
	picker
	// rng is the picker's random source (splitmix.New(opts.Seed), NewRand's sequence), part of
	// the Scheduler's own allocation.
	rng splitmix.Rand
	// pct is the picker when Options.PCTDepth is positive, part of the Scheduler's allocation too.
	pct pctPicker

	// now is start+elapsed, kept with elapsed (setElapsed): the harness and the world read the
	// clock far more often than time moves, so the sum is made when time moves, not on each read.
	now time.Time

	elapsed  time.Duration // virtual time since start
	tasks    []*task       // unfinished tasks in creation order
	runnable []*task       // scratch for next(), reused so a pick allocates nothing
	current  *task         // the task holding the baton (or last holding it)
	baton    *task         // the task the driver resumes next; nil when the run is over
	unwound  int           // tasks[:unwound] have been unwound (or skipped, abandoned)
	spawned  int           // tasks started so far
	handoffs int           // scheduling decisions so far (but those at preemption points)
	// preemptions counts the preemption points passed and counted the caller's events
	// (CountEvent): they count against MaxEvents with the handoffs. preempted counts the
	// preemption points where another task went first, preemptedByRate those PreemptRate forced.
	preemptions, counted, preempted, preemptedByRate int
	findings                                         []Finding
	started                                          bool
	over                                             bool // Run has returned
	// hung is set when the watchdog abandoned a task, whose goroutine may touch the Scheduler at
	// any time after: Reset refuses it.
	hung bool
	// zombies are the coroutines of the run's tasks that ended by Goexit, parked mid-exit until
	// the driver ends them with the run (zombies.go); zombiesInline is their buffer.
	zombies       []*worker
	zombiesInline [zombieBatch]*worker
	// drivers counts the driver goroutines started, for tests: one per run, plus one per hang
	// and per Goexit that reached the driver (a panic during a task's Goexit).
	drivers int

	// tasksInline and runnableInline are the first buffers of tasks and runnable, part of the
	// scheduler's own allocation: a default-mix run has a handful of tasks at a time, and growing
	// the lists from empty reallocated them.
	tasksInline    [8]*task
	runnableInline [8]*task
	// tasksFirst holds the run's first eight tasks (spawn): most runs start about that many, and
	// each would otherwise be an allocation of its own.
	tasksFirst [8]task

	// progress counts resumes and returns of the baton: odd while a task runs its own code, even
	// while scheduler code holds the baton. The watchdog reads it to tell whether the running task
	// has yielded; a task taking the baton back (claim) and Run's goroutine taking it from a hung
	// task both compare-and-swap it from the odd value of that resume, so exactly one of them wins.
	progress atomic.Int64
	// events is what Run's goroutine waits on (await): the driver's runOver, which hands the
	// baton back once the run is over and every task unwound, or the watchdog's report of a hang.
	// One channel, so that await is a receive rather than a select.
	events chan int64
	// killing is set when the run ends early. It is atomic because a task abandoned by the
	// watchdog may read it at any time, after Run has returned.
	killing atomic.Bool
	// overWall is set by the watchdog once the run has taken MaxWall of wall time.
	overWall atomic.Bool
	watch    watchdog

	// kept is what an earlier run left for this one to reuse (reuse.go).
	kept kept
}

// runOver is the driver's event on events: the run is over. The watchdog's reports are progress
// counts, which are never negative.
const runOver = -1

var _ harness.Runtime = (*Scheduler)(nil)

// New makes a scheduler for one run with opts, zero fields replaced by their defaults; Reset
// readies it for another.
func New(opts Options) *Scheduler {
	s := &Scheduler{}
	s.init(opts)
	return s
}

// init readies s, zero but for what it kept from an earlier run, for a run with opts.
func (s *Scheduler) init(opts Options) {
	if opts.Start.IsZero() {
		opts.Start = time.Unix(0, 0).UTC()
	}
	if opts.MaxVirtualTime < 0 {
		opts.MaxVirtualTime = 0
	}
	if opts.MaxEvents <= 0 {
		opts.MaxEvents = defaultMaxEvents
	}
	if opts.Watchdog <= 0 {
		opts.Watchdog = defaultWatchdog
	}
	if opts.MaxTasks <= 0 {
		opts.MaxTasks = defaultMaxTasks
	}
	s.opts, s.start, s.now, s.rng = opts, opts.Start, opts.Start, splitmix.New(opts.Seed)
	s.tasks = s.tasksInline[:0]
	s.runnable = s.runnableInline[:0]
	s.zombies = s.zombiesInline[:0]
	if opts.PCTDepth > 0 {
		s.pct.init(&s.rng, opts.PCTDepth, spare.Emptied(s.kept.pctChanges))
		s.kept.pctChanges = s.pct.changes // grown, perhaps; the picker never appends after init
		s.picker = &s.pct
	} else {
		s.picker = uniformPicker{rng: &s.rng}
	}
}

// RunReport is what a run produced: why it ended early, if it did, and how far it got.
type RunReport struct {
	// Findings is empty when every task finished; otherwise it says what stopped the run (one
	// finding, plus any hang found while unwinding).
	Findings []Finding
	// VirtualElapsed is the virtual time the run covered, for simulated-seconds-per-second metrics.
	VirtualElapsed time.Duration
	// Handoffs is the number of scheduling decisions, for schedules-per-second metrics.
	Handoffs int
	// Preempted is how many times a task gave way to another at a preemption point, for any
	// reason (the uniform draw, PCT, PreemptRate).
	Preempted int
	// PreemptedByRate is how many of those PreemptRate made (the draw the rate adds, which a run
	// without it would not have made): the world's record that the preemption fault struck.
	PreemptedByRate int
}

// Clock returns the virtual clock: Now is Start plus the virtual time elapsed. The harness reads
// time only through it, so event times are reproducible.
func (s *Scheduler) Clock() harness.Clock { return virtualClock{s} }

// Now returns the virtual time, Start plus the virtual time elapsed so far.
func (s *Scheduler) Now() time.Time { return s.now }

// Elapsed returns the virtual time since Start: what a model of a service run on the scheduler
// (a herd's provider) measures its windows and rates from.
func (s *Scheduler) Elapsed() time.Duration { return s.elapsed }

// Handoffs returns the number of scheduling decisions so far, for speed metrics. Like every
// method, call it from a task or after Run returns.
func (s *Scheduler) Handoffs() int { return s.handoffs }

// Spent returns what the run has taken of its budget of events (Options.MaxEvents): scheduling
// decisions, preemption points and the caller's counted events (CountEvent).
func (s *Scheduler) Spent() int { return s.handoffs + s.preemptions + s.counted }

// CountEvent counts one event of the caller's own (the world counts each append its store is
// asked for) against the run's budget, with the scheduling decisions and preemption points: past
// it, the run ends at its next scheduling point with an event-limit finding naming what.
func (s *Scheduler) CountEvent(what string) {
	s.counted++
	s.overBudget(0, what)
}

// overBudget reports whether the run's events, with pending more about to happen, are past its
// budget (Options.MaxEvents), recording the finding that ends the run the first time.
func (s *Scheduler) overBudget(pending int, last string) bool {
	if s.Spent()+pending <= s.opts.MaxEvents {
		return false
	}
	if len(s.findings) == 0 {
		s.addFinding(Finding{
			Kind:    FindingEventLimit,
			Message: fmt.Sprintf("run took more than %d events (scheduling decisions, preemption points and counted events: a livelock?); the last: %s", s.opts.MaxEvents, last),
		})
	}
	return true
}

// Unwinding reports whether the run is over and its unfinished tasks are being ended: a
// deferred function running now runs because its task was killed, not because it returned. What
// a task records from then on (a herd's agent settling its open turn) is not part of the run.
func (s *Scheduler) Unwinding() bool { return s.killing.Load() }

// virtualClock adapts the scheduler to harness.Clock without exposing the scheduler itself.
type virtualClock struct{ s *Scheduler }

// Now returns the scheduler's virtual time.
func (c virtualClock) Now() time.Time { return c.s.Now() }

// Run runs main as the first task, named name, and every task it starts, until all have returned
// or a finding stops the run. It returns once every task has returned or exited (except one the
// watchdog reported as hung, which nothing can stop, and the driver stuck waiting for it; see
// Finding); the coroutines of tasks that returned stay idle for a later run a little longer (see
// goroutines.go). Run may be called once; Reset readies the Scheduler for another run.
func (s *Scheduler) Run(name string, main func()) *RunReport {
	if s.started {
		panic("sched: Run called twice on one Scheduler; Reset it or make a new one")
	}
	s.started = true
	if s.events == nil {
		// Room for the driver's runOver next to a hang report not yet taken, so the driver never
		// waits.
		s.events = make(chan int64, 2)
	}
	s.watch.start(s.opts.Watchdog, &s.progress, s.events, s.opts.MaxWall, &s.overWall)
	defer s.watch.stop()

	s.spawn(nil, name, main)
	s.baton = s.next()
	s.startDriver()
	s.await()
	s.tasks = nil
	s.current = nil
	s.zombies = nil
	s.over = true
	return &RunReport{
		Findings:        s.findings,
		VirtualElapsed:  s.elapsed,
		Handoffs:        s.handoffs,
		Preempted:       s.preempted,
		PreemptedByRate: s.preemptedByRate,
	}
}

// claim takes the baton back for t, which ran its own code since it was resumed. It returns
// false when Run's goroutine took it first, having found t hung: t is abandoned and must touch
// nothing.
func (s *Scheduler) claim(t *task) bool {
	return s.progress.CompareAndSwap(t.at, t.at+1)
}

// await waits, in Run's goroutine, until the driver hands the baton back: the run is over and
// every task unwound. When the watchdog reports that the task holding it has run too long without
// yielding, await takes the baton from it, abandons it, reports a hang and starts a new driver to
// unwind the others (the old one stays stuck with the hung task).
func (s *Scheduler) await() {
	for {
		stalledAt := <-s.events
		if stalledAt == runOver {
			return
		}
		if stalledAt%2 == 0 || !s.progress.CompareAndSwap(stalledAt, stalledAt+1) {
			continue // a stale report: the task yielded since
		}
		t := s.current
		unwinding := s.killing.Load()
		s.abandon(t)
		message := fmt.Sprintf("task %q ran for over %v of wall time without yielding: it is "+
			"blocked outside the runtime (raw channel, mutex, I/O) or spinning", t.fullName(), s.opts.Watchdog)
		if unwinding {
			message = fmt.Sprintf("task %q ran for over %v of wall time while being unwound: a "+
				"deferred function blocks outside the runtime or spins", t.fullName(), s.opts.Watchdog)
		}
		s.addFinding(Finding{Kind: FindingHang, Message: message, Stack: allStacks()})
		s.baton = nil
		s.startDriver()
	}
}

// next decides which task runs next: it wakes parked tasks whose context is done, moves virtual
// time when nothing is runnable, and draws one runnable task. It returns nil when the run is
// over: every task finished, or a finding was recorded.
func (s *Scheduler) next() *task {
	s.checkWall()
	if len(s.tasks) == 0 || len(s.findings) > 0 {
		return nil
	}
	runnable, earliest, sleeping := s.scan()
	if len(runnable) == 0 {
		if !s.advanceTime(earliest, sleeping) {
			return nil
		}
		runnable = s.runnable
	}
	if len(runnable) == 0 {
		panic("sched: invariant violated: no task runnable after virtual time advanced")
	}
	if s.overBudget(1, "a scheduling decision") {
		return nil
	}
	i := s.pick(runnable)
	if i < 0 || i >= len(runnable) {
		panic(fmt.Sprintf("sched: invariant violated: picker chose %d of %d runnable tasks", i, len(runnable)))
	}
	s.handoffs++
	return runnable[i]
}

// scan walks the tasks once, in creation order, before each pick. It makes runnable every parked
// task one of whose contexts is done (checking here, synchronously, instead of in
// context.AfterFunc callbacks keeps every wake-up on the loop and therefore in a reproducible
// order), lists the runnable tasks in a reused buffer, and finds the earliest timer of the tasks
// still sleeping, if any, for advanceTime. One walk instead of one per job: a pick is the
// scheduler's most frequent work.
func (s *Scheduler) scan() (runnable []*task, earliest time.Duration, sleeping bool) {
	runnable = s.runnable[:0]
	earliest = time.Duration(math.MaxInt64)
	for _, t := range s.tasks {
		switch t.state {
		case taskRunnable:
			runnable = append(runnable, t)
			continue
		case taskSleeping, taskWaiting:
		default:
			continue
		}
		if len(t.contexts) > 0 {
			if err := firstDoneCause(t.contexts); err != nil {
				if t.state == taskWaiting {
					t.queue.removeWaiter(t)
				}
				t.wake(nil, err)
				runnable = append(runnable, t)
				continue
			}
		}
		if t.state == taskSleeping && (!sleeping || t.wakeAt < earliest) {
			earliest, sleeping = t.wakeAt, true
		}
	}
	s.runnable = runnable
	return runnable, earliest, sleeping
}

// advanceTime moves virtual time to earliest, the earliest timer (sleeping is false when there is
// none), and lists every task due then in runnable, which is empty, in creation order. It returns
// false, having recorded a finding, when there is no timer (deadlock) or the timer lies beyond
// MaxVirtualTime.
func (s *Scheduler) advanceTime(earliest time.Duration, sleeping bool) bool {
	if !sleeping {
		s.addFinding(Finding{
			Kind:    FindingDeadlock,
			Message: fmt.Sprintf("%d task(s) blocked and no timer pending", len(s.tasks)),
		})
		return false
	}
	if earliest < s.elapsed {
		panic(fmt.Sprintf("sched: invariant violated: timer at +%v is before the virtual now +%v", earliest, s.elapsed))
	}
	if s.opts.MaxVirtualTime > 0 && earliest > s.opts.MaxVirtualTime {
		s.addFinding(Finding{
			Kind: FindingVirtualTimeLimit,
			Message: fmt.Sprintf("next timer at +%v is beyond the virtual time limit of %v",
				earliest, s.opts.MaxVirtualTime),
		})
		return false
	}
	s.setElapsed(earliest)
	for _, t := range s.tasks {
		if t.state == taskSleeping && t.wakeAt == earliest {
			t.wake(nil, nil)
			s.runnable = append(s.runnable, t)
		}
	}
	return true
}

// checkWall records a wall-time-limit finding once the watchdog found the run over MaxWall.
func (s *Scheduler) checkWall() {
	if s.overWall.Load() && len(s.findings) == 0 {
		s.addFinding(Finding{
			Kind:    FindingWallTimeLimit,
			Message: fmt.Sprintf("run took more than %v of wall time (a livelock no count bounds, or a machine far too slow)", s.opts.MaxWall),
		})
	}
}

// setElapsed moves virtual time to elapsed since start.
func (s *Scheduler) setElapsed(elapsed time.Duration) {
	s.elapsed = elapsed
	s.now = s.start.Add(elapsed)
}

// addFinding records f, listing every unfinished task and where it is blocked.
func (s *Scheduler) addFinding(f Finding) {
	f.Tasks = make([]TaskSite, 0, len(s.tasks))
	for _, t := range s.tasks {
		f.Tasks = append(f.Tasks, TaskSite{Name: t.fullName(), Site: t.site()})
	}
	s.findings = append(s.findings, f)
}

// Stop ends the run with a finding of the caller's own kind (a herd's request limit): the run
// stops when the calling task next yields or passes a preemption point, as after a panic, and
// the finding lists every task as for the scheduler's own. A run keeps its first finding: Stop
// after one does nothing. Call it from a task.
func (s *Scheduler) Stop(kind, message string) {
	if len(s.findings) == 0 {
		s.addFinding(Finding{Kind: kind, Message: message})
	}
}

// abandon gives up on t, whose baton Run's goroutine has just taken. Nothing can stop its
// goroutine; instead, killing is set, so that when it next enters the runtime it exits, and its
// claim on the baton fails, so that it exits touching nothing when it yields or returns (taking
// with it the driver stuck waiting for it).
func (s *Scheduler) abandon(t *task) {
	t.state = taskAbandoned
	s.hung = true
	s.killing.Store(true)
}

// remove drops the finished task t from the task list, keeping creation order.
func (s *Scheduler) remove(t *task) {
	for i, u := range s.tasks {
		if u == t {
			copy(s.tasks[i:], s.tasks[i+1:])
			s.tasks[len(s.tasks)-1] = nil
			s.tasks = s.tasks[:len(s.tasks)-1]
			return
		}
	}
	panic(fmt.Sprintf("sched: invariant violated: finished task %q is not in the task list", t.fullName()))
}

// allStacks returns the stacks of every goroutine in the process, for hang reports.
func allStacks() string {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}
