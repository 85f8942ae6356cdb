package harness

import (
	"context"
	"errors"
	"fmt"
	"strconv"
)

// Tool is a function the model may call. A parallel tool may run beside other parallel calls in
// a rolling pool; an exclusive one (the zero value, the safe default) runs alone.
type Tool struct {
	Name     string
	Parallel bool
	// Run executes one call. ctx is cancelled with the step; honouring it is up to the tool.
	// A returned error becomes an error result; the other calls go on.
	Run func(ctx context.Context, arguments string) (string, error)
}

// ToolFailure lets a tool choose the code and name of its error result.
type ToolFailure struct {
	Name    string
	Code    string
	Message string
}

func (e *ToolFailure) Error() string { return e.Message }

// abortedBeforeDispatch is the synthetic result of a call the abort kept from starting.
var abortedBeforeDispatch = ToolError{Name: "AbortError", Code: CodeToolAbortedBeforeDispatch, Message: "tool call aborted before dispatch"}

// toolExecutor runs one step's tool calls: calls start in model order, an exclusive call runs
// alone, a parallel call opens a rolling pool over the parallel calls that follow it, and
// results are committed in model order however they finish.
type toolExecutor struct {
	agent      *Agent
	ctx        context.Context
	turn, step int
	calls      []Block
	// queueName names the step's hand-off queues, made once for all of the step's groups.
	queueName string
	aborted   bool
	// failure is the first scheduler failure: the executor itself could not go on.
	failure error
}

// executeToolCalls runs calls. On abort it stops dispatching, drains the calls already started
// (committing their real results) and gives every call never started a synthetic result. On a
// scheduler failure it stops dispatching, waits for the started calls, fabricates nothing and
// returns the first error.
func (a *Agent) executeToolCalls(ctx context.Context, turn, step int, calls []Block) error {
	x := &toolExecutor{agent: a, ctx: ctx, turn: turn, step: step, calls: calls}
	next := 0
	for next < len(calls) && !x.aborted && x.failure == nil {
		end, limit := next+1, 1
		if t, ok := a.tools.lookup(calls[next].Name); ok && t.Parallel {
			for end < len(calls) && a.isParallel(calls[end].Name) {
				end++
			}
			limit = a.poolLimit
		}
		next = x.runGroup(next, end, limit)
	}
	if x.failure != nil {
		return x.failure
	}
	if x.aborted || ctx.Err() != nil {
		for _, call := range calls[next:] {
			if err := x.appendSkipped(call); err != nil {
				return err
			}
		}
		return context.Cause(ctx)
	}
	return nil
}

func (a *Agent) isParallel(name string) bool {
	t, ok := a.tools.lookup(name)
	return ok && t.Parallel
}

// toolSlot is where a call of a group leaves its result, and whether it has: the group commits
// results in the model's order, each once every call before it settled.
type toolSlot struct {
	result  ToolResult
	settled bool
}

// runGroup runs calls[from:to] with at most limit in flight, and returns the index of the first
// call it did not start.
//
// Each call's task writes its result into its slot and hands in only its index, so results are
// committed in call order whatever order they finish in. The slots are taken from the agent
// (toolSlots) and given back only when the group drained every call it started: a group left by
// a panic keeps them, so that a call still running can never write into the slots of a later
// group.
func (x *toolExecutor) runGroup(from, to, limit int) int {
	if x.queueName == "" {
		x.queueName = "tools(turn " + strconv.Itoa(x.turn) + " step " + strconv.Itoa(x.step) + ")"
	}
	done := x.agent.runtime.NewQueue(x.queueName)
	slots := x.agent.toolSlots
	x.agent.toolSlots = nil
	if cap(slots) < to-from {
		slots = make([]toolSlot, to-from)
	}
	slots = slots[:to-from]
	nextToStart, nextToCommit, inFlight := from, from, 0
	fillPool := func() {
		for !x.aborted && x.failure == nil && nextToStart < to && inFlight < limit {
			if x.ctx.Err() != nil {
				x.aborted = true
				return
			}
			if err := x.dispatch(nextToStart, done, &slots[nextToStart-from].result); err != nil {
				x.failure = err
				return
			}
			nextToStart++
			inFlight++
		}
	}
	fillPool()
	for inFlight > 0 {
		item, _ := done.Get(context.Background()) // draining never gives up
		settled := item.(int)
		inFlight--
		slots[settled-from].settled = true
		for x.failure == nil && nextToCommit < nextToStart && slots[nextToCommit-from].settled {
			if _, err := x.agent.session.Append(slots[nextToCommit-from].result); err != nil {
				x.failure = err
				break
			}
			x.agent.conversation.add(toolEntry(slots[nextToCommit-from].result))
			nextToCommit++
		}
		if x.ctx.Err() != nil {
			x.aborted = true
		}
		fillPool()
	}
	clear(slots) // what the calls returned is the log's now: the kept slots hold none of it
	x.agent.toolSlots = slots
	return nextToStart
}

// dispatch writes tool/call and starts the call on its own task, which leaves the result in slot
// and then puts index to done.
func (x *toolExecutor) dispatch(index int, done Queue, slot *ToolResult) error {
	call := x.calls[index]
	if _, err := x.agent.session.Append(ToolCall{Turn: x.turn, Step: x.step, CallID: call.CallID, Name: call.Name, Arguments: call.Arguments}); err != nil {
		return err
	}
	a := x.agent
	a.mu.Lock()
	a.toolsInFlight++
	a.mu.Unlock()
	tool, known := a.tools.lookup(call.Name)
	ctx, turn, step := x.ctx, x.turn, x.step
	a.runtime.Go("tool "+call.CallID, func() {
		// Deferred, so that a tool ending its goroutine by runtime.Goexit (a t.FailNow in a
		// test's tool) still hands in its result: the executor waits for every started call.
		defer func() {
			slot.Turn, slot.Step = turn, step
			a.mu.Lock()
			a.toolsInFlight--
			a.notifyIdleLocked()
			a.mu.Unlock()
			done.Put(index)
		}()
		runTool(ctx, tool, known, call, slot)
	})
	return nil
}

// runTool runs one call and leaves its outcome in *out as a result: an unknown name is
// TOOL_NOT_FOUND, a panic TOOL_PANIC with the panic text, an error an error result. A tool that
// ends the goroutine by runtime.Goexit never returns, and nothing can stop its goroutine from
// ending; it is a TOOL_PANIC too, left in *out for the caller's deferred hand-in.
func runTool(ctx context.Context, tool Tool, known bool, call Block, out *ToolResult) {
	*out = ToolResult{CallID: call.CallID}
	if !known {
		*out = errorResult(*out, ToolError{Name: "ToolNotFound", Code: CodeToolNotFound, Message: fmt.Sprintf("no tool named %q", call.Name)})
		return
	}
	returned := false
	defer func() {
		if r := recover(); r != nil {
			*out = errorResult(*out, ToolError{Name: "ToolPanic", Code: CodeToolPanic, Message: fmt.Sprintf("tool %q panicked: %v", call.Name, r)})
		} else if !returned {
			*out = errorResult(*out, ToolError{Name: "ToolPanic", Code: CodeToolPanic, Message: fmt.Sprintf("tool %q exited its goroutine (runtime.Goexit) without returning", call.Name)})
		}
	}()
	content, err := tool.Run(ctx, call.Arguments)
	returned = true
	tf, isFailure := errors.AsType[*ToolFailure](err)
	switch {
	case err == nil:
		out.Content = content
	case isFailure && tf.Code != "":
		*out = errorResult(*out, ToolError{Name: tf.Name, Code: tf.Code, Message: tf.Message})
	default:
		*out = errorResult(*out, ToolError{Name: "ToolError", Code: CodeToolError, Message: ErrorChain(err)})
	}
}

func errorResult(r ToolResult, e ToolError) ToolResult {
	if e.Name == "" {
		e.Name = "ToolError"
	}
	r.IsError, r.Content, r.Error = true, "Error: "+e.Message, &e
	return r
}

// appendSkipped writes a never-started call's tool/call and its synthetic result, so every
// tool/call in the log has its tool/result.
func (x *toolExecutor) appendSkipped(call Block) error {
	if _, err := x.agent.session.Append(ToolCall{Turn: x.turn, Step: x.step, CallID: call.CallID, Name: call.Name, Arguments: call.Arguments}); err != nil {
		return err
	}
	result := errorResult(ToolResult{Turn: x.turn, Step: x.step, CallID: call.CallID}, abortedBeforeDispatch)
	if _, err := x.agent.session.Append(result); err != nil {
		return err
	}
	x.agent.conversation.add(toolEntry(result))
	return nil
}

func toolEntry(r ToolResult) Entry {
	return Entry{Role: RoleTool, Text: r.Content, CallID: r.CallID, IsError: r.IsError}
}
