package sched

import (
	"fmt"
	"strings"
)

// Finding kinds: why a run ended early. They are stable strings because reports and corpus files
// group findings by kind.
const (
	// FindingDeadlock: tasks are blocked and no timer is pending, so nothing can ever wake them.
	FindingDeadlock = "deadlock"
	// FindingPanic: a task panicked; the run cannot meaningfully continue.
	FindingPanic = "panic"
	// FindingHang: a task held the baton for longer than the watchdog allows, blocked outside the
	// runtime or spinning.
	FindingHang = "hang"
	// FindingVirtualTimeLimit: the next timer is due after Options.MaxVirtualTime.
	FindingVirtualTimeLimit = "virtual-time-limit"
	// FindingEventLimit: the run took more than Options.MaxEvents events (scheduling decisions,
	// preemption points, the caller's counted events).
	FindingEventLimit = "event-limit"
	// FindingTaskLimit: the run had more than Options.MaxTasks unfinished tasks.
	FindingTaskLimit = "task-limit"
	// FindingWallTimeLimit: the run took more than Options.MaxWall of wall time.
	FindingWallTimeLimit = "wall-time-limit"
)

// Finding is why a run stopped before every task finished, with enough context to start
// debugging from the report alone: every task's block site and, where one exists, a stack.
type Finding struct {
	// Kind is one of the Finding* constants.
	Kind string
	// Message says what happened in one line, naming the task responsible when there is one.
	Message string
	// Tasks lists every unfinished task in creation order and where it was when the run stopped,
	// so a deadlock reads as a story: who waits for what.
	Tasks []TaskSite
	// Stack is the panicking task's stack for a panic, and every goroutine's stack for a hang
	// (the hung goroutine cannot be killed and is left running; its stack says where it is
	// stuck). It is empty for the other kinds, whose Tasks say it all.
	Stack string
}

// TaskSite names a task and where it is blocked, e.g. "sleeping until +1.5s" or "blocked on queue
// tools.Get".
type TaskSite struct {
	// Name is the name the task was started with (Run's or Go's name argument).
	Name string
	// Site is where the task was when the run stopped, in words.
	Site string
}

// findingTasksShown bounds the tasks String lists, so a runaway run's report stays readable.
const findingTasksShown = 20

// String renders the finding on several lines: kind and message, then one line per task (the
// first findingTasksShown of them, and how many more there were).
func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", f.Kind, f.Message)
	for i, t := range f.Tasks {
		if i == findingTasksShown {
			fmt.Fprintf(&b, "\n  … and %d more tasks", len(f.Tasks)-i)
			break
		}
		fmt.Fprintf(&b, "\n  task %q: %s", t.Name, t.Site)
	}
	return b.String()
}
