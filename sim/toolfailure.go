package sim

import (
	"errors"
	"fmt"
	"io"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
)

// The tool-failure fault: a simulated tool returns its own *harness.ToolFailure, as a user's
// tool does to choose its error's name and code, bare or wrapped the way real tool code wraps
// errors (fmt.Errorf with %w as it passes the error up, errors.Join as a cleanup also fails).
// The result must carry the ToolFailure's name, code and message, not the wrapper's text.

// The name and code of a planned ToolFailure: no code of the harness's own, so a result that
// carries them can only have come from the tool.
const (
	toolFailureName = "QuotaExceeded"
	toolFailureCode = "TOOL_QUOTA_EXCEEDED"
)

// plannedToolFailure is the ToolFailure a call to tool planned to fail so returns.
func plannedToolFailure(tool string) *harness.ToolFailure {
	return &harness.ToolFailure{Name: toolFailureName, Code: toolFailureCode, Message: "the quota of tool " + tool + " is spent"}
}

// wrapToolFailure wraps failure in the layers of wrap, innermost first.
func wrapToolFailure(failure *harness.ToolFailure, wrap []string) error {
	var err error = failure
	for layer, kind := range wrap {
		switch kind {
		case faults.WrapErrorf:
			err = fmt.Errorf("tool client: attempt %d: %w", layer+1, err)
		case faults.WrapJoin:
			err = errors.Join(err, fmt.Errorf("tool client: closing the connection: %w", io.ErrClosedPipe))
		default:
			panic(fmt.Sprintf("sim: invariant: a validated plan wraps a tool failure with %q", kind))
		}
	}
	return err
}

// endFailure records the run's end now: the tool returned failure (bare or wrapped), whose name,
// code and message its result must carry.
func (r toolRunning) endFailure(failure *harness.ToolFailure) {
	r.end(faults.OutcomeFailure, failure.Message)
	t := r.tracer
	t.mu.Lock()
	t.trace.Tools[r.index].Failure = failure
	t.mu.Unlock()
}
