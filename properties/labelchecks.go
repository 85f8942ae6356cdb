package properties

import (
	"slices"
	"strings"

	"github.com/turnsim/turnsim/harness"
)

// fault-labelled: the world knows which faults it injected into tool calls (a call to a name no
// one registered, a tool that panicked or ended its goroutine by runtime.Goexit, one that
// returned an error), so coverage counts them from its own record and this property checks the
// harness's reaction: the label each result carries (harness.md §6). A harness that mislabels a
// fault is then a violation, not a fault that "never struck".

// expectedLabel is the error code the spec gives the result of a call, from what the world did:
// whether the name was registered and how its tool run ended. ok is false when the spec fixes no
// label here (a run cut short by a cancel or a crash is judged by other properties).
func expectedLabel(registered bool, run ToolRun, ran bool) (code string, ok bool) {
	switch {
	case !registered:
		return harness.CodeToolNotFound, true // "an unknown name gives an error result (TOOL_NOT_FOUND)"
	case !ran:
		return "", false
	case run.Outcome == "panic":
		return harness.CodeToolPanic, true // "a panicking tool gives an error result (TOOL_PANIC)"
	case run.Outcome == "goexit":
		// A tool that ends its goroutine by runtime.Goexit never returns: that is no answer, so
		// it is labelled like a panic (TOOL_PANIC), and its result says runtime.Goexit.
		return harness.CodeToolPanic, true
	case run.Outcome == "error":
		return harness.CodeToolError, true // "a tool error gives an error result"
	case run.Outcome == "ok":
		return "", true // a real result, no error
	}
	return "", false
}

// setAside reports whether r is a result the abort or crash repair wrote in place of running the
// call: unstarted-get-synthetic and interrupted-turns judge those.
func setAside(r harness.ToolResult) bool {
	return isSynthetic(r) || repaired(r)
}

func checkFaultLabelled(x *index, v *violations) {
	if !x.run.Traced {
		return // the labels follow from what the world did: a log alone does not say
	}
	registered := func(name string) bool {
		return slices.Contains(x.run.ParallelTools, name) || slices.Contains(x.run.ExclusiveTools, name)
	}
	x.eachStep(func(t *turnIndex, step int, s *stepIndex) {
		for _, c := range s.calls {
			r, ok := s.resultFor(c.data.CallID)
			if !ok || setAside(r.data) {
				continue
			}
			run, ran := x.runs[callKey{t.number, step, c.data.CallID}]
			if !registered(c.data.Name) && ran {
				v.add(c.seq, c.timeMs, "turn %d step %d: call %s to the unknown tool %q ran", t.number, step, c.data.CallID, c.data.Name)
			}
			want, known := expectedLabel(registered(c.data.Name), run, ran)
			got := ""
			if r.data.Error != nil {
				got = r.data.Error.Code
			}
			switch {
			case got == harness.CodeToolNotFound && registered(c.data.Name):
				v.add(r.seq, r.timeMs, "turn %d step %d: call %s to the registered tool %q is labelled TOOL_NOT_FOUND", t.number, step, c.data.CallID, c.data.Name)
			case !known:
			case got != want || r.data.IsError != (want != ""):
				v.add(r.seq, r.timeMs, "turn %d step %d: call %s (%s) is labelled %q (isError %v), want %q", t.number, step, c.data.CallID, describeCall(c.data.Name, registered(c.data.Name), run), got, r.data.IsError, want)
			case want == harness.CodeToolPanic && run.Outcome == "goexit" && !strings.Contains(r.data.Error.Message, "runtime.Goexit"):
				v.add(r.seq, r.timeMs, "turn %d step %d: call %s ended its goroutine by runtime.Goexit, but its result says %q", t.number, step, c.data.CallID, r.data.Error.Message)
			case want == harness.CodeToolPanic && !strings.Contains(r.data.Error.Message, run.Content):
				v.add(r.seq, r.timeMs, "turn %d step %d: call %s panicked with %q, but its result says %q", t.number, step, c.data.CallID, run.Content, r.data.Error.Message)
			}
		}
	})
}

// describeCall says what the world did with a call, for messages.
func describeCall(name string, registered bool, run ToolRun) string {
	if !registered {
		return "unknown tool " + name
	}
	return name + " " + run.Outcome
}
