package sched

import (
	"context"
	"time"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/internal/spare"
)

// Process is a group of tasks that can die together, like the goroutines of one OS process: the
// simulator gives each incarnation of an agent its own Process as its runtime, so a crash fault
// can kill every task of that agent (the turn loop, its tool calls) at any scheduling point,
// while the world's own tasks (the user, the host) go on and start a new incarnation.
type Process struct {
	s     *Scheduler
	name  string
	tasks []*task
	dead  bool
	// tasksInline is tasks' first buffer, part of the process's own allocation: an incarnation
	// starts a few tasks, and growing the list from empty reallocated it each time.
	tasksInline [4]*task
}

var _ harness.Runtime = (*Process)(nil)

// NewProcess makes an empty process on the scheduler; its tasks are the ones started through it.
func (s *Scheduler) NewProcess(name string) *Process {
	p := s.kept.processes.take() // an earlier run's, or a new one
	*p = Process{s: s, name: name, tasks: spare.Emptied(p.tasks)}
	if p.tasks == nil {
		p.tasks = p.tasksInline[:0]
	}
	return p
}

// Clock is the scheduler's virtual clock.
func (p *Process) Clock() harness.Clock { return p.s.Clock() }

// Go starts fn as a task of the process. A dead process starts nothing.
func (p *Process) Go(name string, fn func()) {
	if p.dead || p.s.killing.Load() {
		return
	}
	caller := p.s.caller("Go")
	p.tasks = append(p.tasks, p.s.spawn(p, name, fn))
	p.s.yield(caller)
}

// Sleep is the scheduler's Sleep.
func (p *Process) Sleep(d time.Duration, cancel ...context.Context) error {
	return p.s.Sleep(d, cancel...)
}

// NewQueue is the scheduler's NewQueue.
func (p *Process) NewQueue(name string) harness.Queue { return p.s.NewQueue(name) }

// Dead reports whether the process was killed.
func (p *Process) Dead() bool { return p.dead }

// Kill kills every task of the process: each exits (runtime.Goexit, its defers running) the next
// time it is resumed, wherever it is parked. Call it from a task; if the caller is itself a task
// of the process, it goes on running until its next primitive call, or until it calls
// runtime.Goexit itself (as a store dying mid-write does).
func (p *Process) Kill() {
	if p.dead {
		return
	}
	p.dead = true
	for _, t := range p.tasks {
		if t.state == taskDone || t.state == taskAbandoned || t.killed {
			continue
		}
		t.killed = true
		switch t.state {
		case taskWaiting:
			t.queue.removeWaiter(t)
			t.wake(nil, nil)
		case taskSleeping:
			t.wake(nil, nil)
		}
	}
	clear(p.tasks)
	p.tasks = p.tasks[:0] // its buffer, for a process of a later run (Reset)
}

// Owns reports whether the task now running belongs to the process.
func (p *Process) Owns() bool {
	current := p.s.current
	for _, t := range p.tasks {
		if t == current {
			return true
		}
	}
	return false
}
