package sched

// Tasks: the coroutine behind each simulated task, the baton exchange seen from the task's side,
// and the primitives Go and Sleep (Queue.Get is in queue.go).

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"time"
)

// taskState says what a task is doing, as the loop sees it between handoffs.
type taskState uint8

const (
	taskRunnable  taskState = iota // may be picked: new, or yielded without blocking
	taskSleeping                   // parked in Sleep until wakeAt or a context ends
	taskWaiting                    // parked in Queue.Get until an item or a context ends
	taskDone                       // returned (or panicked); removed from the task list
	taskAbandoned                  // reported hung; its goroutine is beyond reach
)

// task is one simulated task. Its fields belong to whoever holds the baton: the task while it
// runs, the scheduling step or the driver otherwise; the coroutine switches and the claim on the
// progress count hand the baton over and order those accesses. A run starts about nine, so the
// struct is kept small (168 bytes): what a finding needs of a panic goes straight into it.
type task struct {
	// process (nil outside one) and name make up the task's name, "process: name"; fullName
	// joins them when a finding or a panic needs it, not at every Go.
	process *Process
	name    string

	fn func()  // the task's function, until its first resume hands it to a worker
	w  *worker // the coroutine running the task; resuming it runs the task (or, killing, ends it)
	at int64   // the scheduler's progress count when the task was last resumed (odd)
	// ended is set when the task ended holding the baton, by return, panic or runtime.Goexit: a
	// driver whose goroutine a Goexit ends then knows to hand the loop to a new one.
	ended bool
	// returned is set when the task's function returned (or was never called): finish tells a
	// return from a Goexit by it.
	returned bool
	// killed is set when the task's process was killed (Process.Kill): at its next resume the task
	// exits with runtime.Goexit, as its goroutine would if the process had died.
	killed bool

	state    taskState
	wakeAt   time.Duration     // virtual wake time while sleeping
	contexts []context.Context // contexts that end the wait early; buffer reused across waits
	// contextsInline is contexts' first buffer, part of the task's own allocation: a wait names
	// one or two contexts, and every task's first wait used to allocate its buffer.
	contextsInline [2]context.Context
	queue          *queue // the queue waited on while waiting

	item any   // handed in by Queue.Put
	err  error // context.Cause of the context that ended the wait, or nil

	// pctPriority is the task's priority under PCT (pctPicker), 0 until the picker first sees it.
	pctPriority int64
}

// spawn creates a runnable task for fn. It gets its coroutine from the driver, at its first
// resume; until then it holds none. The run's first tasks are part of the scheduler's own
// allocation (tasksFirst); the others are an earlier run's (reuse.go) or allocated one by one.
func (s *Scheduler) spawn(process *Process, name string, fn func()) *task {
	var t *task
	if s.spawned < len(s.tasksFirst) {
		t = &s.tasksFirst[s.spawned]
	} else {
		t = s.kept.tasks.take()
		*t = task{}
	}
	s.spawned++
	t.process = process
	t.name = name
	t.fn = fn
	t.contexts = t.contextsInline[:0]
	s.tasks = append(s.tasks, t)
	if len(s.tasks) > s.opts.MaxTasks && len(s.findings) == 0 {
		// Called from the running task (or Run): the loop stops at its next turn and unwinds.
		s.addFinding(Finding{
			Kind:    FindingTaskLimit,
			Message: fmt.Sprintf("run has more than %d unfinished tasks (a livelock spawning tasks?)", s.opts.MaxTasks),
		})
	}
	return t
}

// runTask runs a task on its coroutine, which has taken the task's first resume.
func (s *Scheduler) runTask(t *task, fn func()) {
	defer s.finish(t)
	if !s.killing.Load() && !t.killed { // else the run ended, or its process died, before it ran
		fn()
	}
	t.returned = true
}

// stackReserve is how much stack growStack reserves: enough that the stack it grows to holds the
// turn loop's deepest calls. Reserving more cost more than it saved (the fresh stack is zeroed and
// faulted in whether the task uses it or not; the commits that set it have the figures).
const stackReserve = 8 << 10

// growStack grows a fresh task goroutine's stack in one step, while it is still shallow. A new
// goroutine starts on a small stack and doubled it by copying each time the harness's calls
// deepened (Validator.Check's frame, encoding/json, strconv), every copy adjusting every frame
// already on the stack: runtime.newstack stood high in a schedule's profile. Grown here, the copy
// moves two frames.
//
//go:noinline
func growStack(i int) byte {
	var buf [stackReserve]byte
	buf[i%stackReserve] = byte(i)
	return buf[(i+1)%stackReserve]
}

// finish runs when a task ends, by return, panic or runtime.Goexit, and leaves the next task in
// baton for the driver. An abandoned (hung) task, perhaps running after Run returned, fails its
// claim and exits touching nothing (runtime.Goexit, which also ends the driver that was stuck
// waiting for it). While the run is unwound the driver picks the next task to end itself, and a
// panic raised while unwinding is ignored. A task ending by Goexit does not finish exiting here:
// its coroutine parks, a zombie, for the driver to end later (zombies.go), so that the Goexit does
// not end the driver too.
func (s *Scheduler) finish(t *task) {
	r := recover()
	if !s.claim(t) {
		runtime.Goexit()
	}
	t.ended = true
	if !s.killing.Load() {
		t.state = taskDone
		s.remove(t)
		if r != nil && !t.killed { // a panic while a killed process unwinds is part of its death
			s.addFinding(Finding{
				Kind:    FindingPanic,
				Message: fmt.Sprintf("task %q panicked: %v", t.fullName(), r),
				Stack:   string(debug.Stack()),
			})
		}
		s.baton = s.next()
	}
	// Neither a return nor a panic: a Goexit is under way. (One that a panic interrupted, the
	// panic recovered above, still goes on and reaches the driver; see drive.)
	if r == nil && !t.returned {
		w := t.w
		w.exiting = true
		w.park(struct{}{}) // returns when the zombie is stopped; then touch nothing
	}
}

// yield takes the baton back, runs the scheduling step and waits until t is resumed; t has set
// its state first. When the step picks t itself, it goes on without a switch; otherwise it leaves
// the next task in baton and switches back to the driver. When resumed to be killed, it exits the
// coroutine with runtime.Goexit, so the task's defers run.
func (s *Scheduler) yield(t *task) {
	if !s.claim(t) {
		runtime.Goexit() // abandoned as hung meanwhile: the run has moved on
	}
	if next := s.next(); next != t {
		s.baton = next
		t.w.park(struct{}{})
	} else {
		t.at = s.progress.Add(1)
	}
	if s.killing.Load() || t.killed {
		runtime.Goexit()
	}
}

// wake makes a parked task runnable with the result of its wait, and drops its contexts so a
// finished wait keeps nothing alive.
func (t *task) wake(item any, err error) {
	t.state = taskRunnable
	t.item, t.err = item, err
	t.queue = nil
	clear(t.contexts)
	t.contexts = t.contexts[:0]
}

// site says where the task is, for findings: "runnable", "sleeping until +1.5s",
// "blocked on queue tools.Get".
func (t *task) site() string {
	switch t.state {
	case taskRunnable:
		return "runnable"
	case taskSleeping:
		return fmt.Sprintf("sleeping until +%v", t.wakeAt)
	case taskWaiting:
		return fmt.Sprintf("blocked on queue %s.Get", t.queue.name)
	case taskDone:
		return "done"
	case taskAbandoned:
		return "running without yielding (blocked outside the runtime, or spinning)"
	}
	panic(fmt.Sprintf("sched: invariant violated: task %q in unknown state %d", t.fullName(), t.state))
}

// caller returns the task calling a primitive. While the run is being killed it does not return:
// the calling goroutine exits with runtime.Goexit, also when called from a deferred function
// during that exit. op names the primitive for the misuse panic.
func (s *Scheduler) caller(op string) *task {
	if s.killing.Load() {
		runtime.Goexit()
	}
	t := s.current
	if t == nil {
		panic("sched: " + op + " called outside a task of this scheduler (before or after Run, or from a foreign goroutine)")
	}
	if t.killed {
		runtime.Goexit()
	}
	return t
}

// Go starts fn as a new runnable task named name. It is a yield point: the caller stays runnable,
// and the picker decides which of the two runs first, so both orders are explored across seeds.
// While the run is being unwound it starts nothing and returns.
func (s *Scheduler) Go(name string, fn func()) {
	if s.killing.Load() {
		return
	}
	t := s.caller("Go")
	s.spawn(nil, name, fn)
	s.yield(t)
}

// Sleep parks the calling task for d of virtual time, or until one of cancel is done, whichever
// comes first, and returns nil or context.Cause of that context. A context already done returns
// its cause at once without yielding; d <= 0 yields once (another task may run) and returns nil.
// Nil entries in cancel are never done. Time only moves when no task is runnable, so a sleep of d
// wakes at exactly the virtual instant it was due.
func (s *Scheduler) Sleep(d time.Duration, cancel ...context.Context) error {
	t := s.caller("Sleep")
	if err := firstDoneCause(cancel); err != nil {
		return err
	}
	if d <= 0 {
		s.yield(t)
		return nil
	}
	t.state = taskSleeping
	t.wakeAt = s.elapsed + d
	if d > time.Duration(1<<63-1)-s.elapsed {
		t.wakeAt = time.Duration(1<<63 - 1) // a sleep beyond the end of time wakes at the end of time
	}
	for _, ctx := range cancel {
		if ctx != nil {
			t.contexts = append(t.contexts, ctx)
		}
	}
	s.yield(t)
	err := t.err
	t.err = nil
	return err
}

// firstDoneCause returns context.Cause of the first done context, in argument order, or nil when
// none is done. Nil entries are skipped.
func firstDoneCause(contexts []context.Context) error {
	for _, ctx := range contexts {
		if ctx != nil && ctx.Err() != nil {
			return context.Cause(ctx)
		}
	}
	return nil
}

// fullName is the task's name: "process: name" for a process's task.
func (t *task) fullName() string {
	if t.process == nil {
		return t.name
	}
	return t.process.name + ": " + t.name
}
