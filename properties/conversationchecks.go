package properties

import (
	"slices"

	"github.com/turnsim/turnsim/harness"
)

// A provider refuses a conversation in which a tool call has no result, a result has no call,
// or a call has two results (the spec: "the conversation sent in any request never holds a tool
// call without exactly one result after it"). The property judges what the simulated provider
// was actually sent, request by request, and reports each offending call once.
//
// A call's id is unique in its step only: a later step may ask for a call with the id of an
// earlier one (call_1 in every answer). So a result answers the call with its id still waiting
// for one, before it; once answered, the id is free for a later call. A call asked for while an
// earlier call with its id still waits leaves that earlier call without a result of its own.

func checkConversationWellFormed(x *index, v *violations) {
	reported := map[string]bool{} // each offending call is reported once
	report := func(r Request, callID, format string, args ...any) {
		if !reported[callID] {
			reported[callID] = true
			v.add(0, r.StartMs, "request of turn %d step %d attempt %d: "+format, append([]any{r.Turn, r.Step, r.Attempt}, args...)...)
		}
	}
	// A call waiting for its result: its id and the entry that asked for it.
	type call struct {
		id    string
		entry int
	}
	for _, r := range x.run.Trace.Requests {
		var waiting []call            // the calls asked for and not yet answered, in order
		answered := map[string]bool{} // ids that had a result, for a second result's message
		for i, m := range r.Messages {
			switch m.Role {
			case harness.RoleAssistant:
				for _, id := range m.CallIDs {
					if k := slices.IndexFunc(waiting, func(c call) bool { return c.id == id }); k >= 0 {
						report(r, id, "tool call %s (entry %d) is asked for again (entry %d) before it has its result", id, waiting[k].entry, i)
						waiting = slices.Delete(waiting, k, k+1)
					}
					waiting = append(waiting, call{id, i})
				}
			case harness.RoleTool:
				k := slices.IndexFunc(waiting, func(c call) bool { return c.id == m.ResultFor })
				switch {
				case k >= 0:
					waiting = slices.Delete(waiting, k, k+1)
					answered[m.ResultFor] = true
				case answered[m.ResultFor]:
					report(r, m.ResultFor, "tool call %s has a second result (entry %d)", m.ResultFor, i)
				default:
					report(r, m.ResultFor, "the tool result for %s (entry %d) has no call before it", m.ResultFor, i)
				}
			}
		}
		for _, c := range waiting {
			report(r, c.id, "tool call %s (entry %d) has no result in the conversation (%d entries)", c.id, c.entry, len(r.Messages))
		}
	}
}
