package properties

import "github.com/turnsim/turnsim/harness"

// A provider refuses a conversation in which a tool call has no result, a result has no call,
// or a call has two results (the spec: "the conversation sent in any request never holds a tool
// call without exactly one result after it"). The property judges what the simulated provider
// was actually sent, request by request, and reports each offending call once.

func checkConversationWellFormed(x *index, v *violations) {
	reported := map[string]bool{}
	report := func(r Request, callID, format string, args ...any) {
		if !reported[callID] {
			reported[callID] = true
			v.add(0, r.StartMs, "request of turn %d step %d attempt %d: "+format, append([]any{r.Turn, r.Step, r.Attempt}, args...)...)
		}
	}
	for _, r := range x.run.Trace.Requests {
		var calls []string
		asked := map[string]bool{}
		results := map[string]int{}
		for i, m := range r.Messages {
			switch m.Role {
			case harness.RoleAssistant:
				for _, id := range m.CallIDs {
					if asked[id] {
						report(r, id, "tool call %s is asked for twice (entry %d)", id, i)
					}
					asked[id] = true
					calls = append(calls, id)
				}
			case harness.RoleTool:
				switch {
				case !asked[m.ResultFor]:
					report(r, m.ResultFor, "the tool result for %s (entry %d) has no call before it", m.ResultFor, i)
				case results[m.ResultFor] > 0:
					report(r, m.ResultFor, "tool call %s has a second result (entry %d)", m.ResultFor, i)
				}
				results[m.ResultFor]++
			}
		}
		for _, id := range calls {
			if results[id] == 0 {
				report(r, id, "tool call %s has no result in the conversation (%d entries)", id, len(r.Messages))
			}
		}
	}
}
