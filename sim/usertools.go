package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
)

// A user's tools in the world. The plan is drawn for turnsim's own tool names (faults.
// ParallelTools, ExclusiveTools), so that a seed draws the same faults whatever the agent; the
// simulated provider renames each planned call to one of the user's tools (a parallel one for a
// parallel name, an exclusive one for an exclusive name, the other kind when the user has none of
// the one), keeps a call to an unknown tool unknown, and gives the call arguments from the
// user's generator. The world then wraps the user's tool with the call's faults: a latency before
// it runs (honouring the step's context, or not with tool-ignores-cancel, when the user's tool
// gets a context that is never cancelled), and a planned error or panic that stands in front of
// the tool (the call fails before reaching it). A call planned to succeed runs the user's tool
// for real, and its trace records what it really did.

// userTools is what the world knows of the user's tools: their names by kind, and the random
// source their arguments are drawn from.
type userTools struct {
	parallel, exclusive []string
	arguments           func(tool string, r *rand.Rand) string
	rng                 *rand.Rand
}

// newUserTools reads the names of the agent's tools (nil when it has none of its own).
func newUserTools(a Agent, rt harness.Runtime, seed int64) *userTools {
	if a.Tools == nil {
		return nil
	}
	u := &userTools{arguments: a.Arguments, rng: faults.NewRand(deriveSeed(seed, streamToolArguments))}
	for _, tool := range a.Tools(rt) {
		if tool.Parallel {
			u.parallel = append(u.parallel, tool.Name)
		} else {
			u.exclusive = append(u.exclusive, tool.Name)
		}
	}
	return u
}

// rename maps a planned call's tool name onto the user's tools; an unknown name stays unknown.
func (u *userTools) rename(name string) string {
	pick := func(plan []string, own, other []string) string {
		if len(own) == 0 {
			own = other
		}
		return own[slices.Index(plan, name)%len(own)]
	}
	switch {
	case slices.Contains(faults.ParallelTools, name):
		return pick(faults.ParallelTools, u.parallel, u.exclusive)
	case slices.Contains(faults.ExclusiveTools, name):
		return pick(faults.ExclusiveTools, u.exclusive, u.parallel)
	}
	return name
}

// known reports whether name is one of the user's tools.
func (u *userTools) known(name string) bool {
	return slices.Contains(u.parallel, name) || slices.Contains(u.exclusive, name)
}

// input draws the arguments of a call to tool.
func (u *userTools) input(tool string) string {
	if u.arguments != nil {
		if s := u.arguments(tool, u.rng); s != "" {
			return s
		}
	}
	return "{}"
}

// wrapUserTools wraps each of the user's tools with the world's tool faults.
func wrapUserTools(tools []harness.Tool, rt harness.Runtime, t *tracer) []harness.Tool {
	wrapped := make([]harness.Tool, len(tools))
	for i, tool := range tools {
		wrapped[i] = harness.Tool{Name: tool.Name, Parallel: tool.Parallel, Run: userTool(tool, rt, t)}
	}
	return wrapped
}

func userTool(tool harness.Tool, rt harness.Runtime, t *tracer) func(context.Context, string) (string, error) {
	return func(ctx context.Context, arguments string) (content string, err error) {
		args, run, err := playPlannedCall(ctx, rt, t, tool.Name, tool.Parallel, arguments)
		if err != nil {
			return "", err
		}
		call := args.Call
		toolCtx := ctx
		if call.IgnoreCancel {
			toolCtx = context.WithoutCancel(ctx)
		}
		defer func() {
			if p := recover(); p != nil {
				run.end(faults.OutcomePanic, fmt.Sprint(p))
				panic(p)
			}
		}()
		if m := t.aimer; m != nil {
			m.userToolStarted(tool.Name, args.Input, run.index)
		}
		content, err = tool.Run(toolCtx, args.Input)
		if call.IgnoreCancel && ctx.Err() != nil {
			t.strike(faults.ToolIgnoresCancel) // it was cancelled mid-call and ran on
		}
		var failure *harness.ToolFailure
		switch {
		case err == nil:
			run.end(faults.OutcomeOK, content)
		case errors.As(err, &failure):
			run.endFailure(failure) // the tool chose its own label, however it wrapped it
		case toolCtx.Err() != nil:
			run.end("cancelled", "")
		default:
			run.end(faults.OutcomeError, "")
		}
		return content, err
	}
}
