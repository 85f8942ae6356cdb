package sim

import (
	"slices"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
)

// Tool calls in a derivation: a call's behaviour comes from its arguments when they carry the
// plan's call (turnsim's simulated tools and the fault server write it there), else from its
// tool/call and tool/result times; dispatch times tell the pool limit.

// synthetic reports whether the tool/call at i was written with its result for a call that never
// ran (aborted before dispatch): its result follows at once.
func (d *deriver) synthetic(i int) bool {
	if i+1 >= len(d.events) {
		return false
	}
	r, ok := d.events[i+1].Data.(harness.ToolResult)
	return ok && r.Error != nil && r.Error.Code == harness.CodeToolAbortedBeforeDispatch
}

func (d *deriver) toolCall(i int, c harness.ToolCall) {
	e := d.events[i]
	if d.step == nil {
		return
	}
	if d.synthetic(i) {
		if sc := d.step.calls[c.CallID]; sc != nil {
			sc.aborted = true
			d.step.order = append(d.step.order, c.CallID)
		}
		return
	}
	sc := d.step.calls[c.CallID]
	if sc == nil {
		d.note(e.Seq, "tool call %s was dispatched but no answer of its step asked for it", c.CallID)
		return
	}
	if e.Time-d.now > driftMaxMs {
		// Far later than the event before it: the call waited for a slot in the pool, which the
		// replay frees when the call holding it ends, at its time.
		d.now = e.Time
	}
	sc.dispatched, sc.dispatchMs, sc.dispatchSimMs, sc.callSeq = true, e.Time, d.now, e.Seq
	sc.endMs = e.Time + d.plan.Answers[sc.answer].Calls[sc.index].LatencyMs
	d.step.order = append(d.step.order, c.CallID)
}

func (d *deriver) toolResult(e harness.Event, r harness.ToolResult) {
	if d.step == nil {
		return
	}
	sc := d.step.calls[r.CallID]
	if sc == nil || !sc.dispatched {
		return
	}
	sc.resulted, sc.resultSeq = true, e.Seq
	call := &d.plan.Answers[sc.answer].Calls[sc.index]
	if !sc.planned {
		// The tool is the user's: the replay waits what it took, then runs it for real.
		call.LatencyMs = min(max(e.Time-sc.dispatchSimMs, 0), faults.DurationMsMax)
		sc.endMs = e.Time
	}
	switch {
	case r.Error != nil && r.Error.Code == harness.CodeToolNotFound:
		sc.endMs = sc.dispatchMs // no tool ran: its result came at once
	case !sc.planned:
		d.now = max(d.now, e.Time)
	case !ranItsCourse(*call, r):
		d.now = max(d.now, e.Time) // a cancel cut it short, when the log says
	default:
		d.now = max(d.now, sc.dispatchSimMs+call.LatencyMs)
	}
}

// outlast makes every call of the open step that was dispatched and has no result yet run past
// atMs (a crash or a cancel struck it there): the log shows it never ended before, so the replay's
// must not either. A planned latency that would end sooner (a real timer that fired late) is
// lengthened, and the call's arguments kept as delivered.
func (d *deriver) outlast(atMs, seq int64) {
	if d.step == nil {
		return
	}
	for _, id := range d.step.order {
		sc := d.step.calls[id]
		if sc.resulted || sc.aborted {
			continue
		}
		call := &d.plan.Answers[sc.answer].Calls[sc.index]
		if end := sc.dispatchMs + call.LatencyMs; end > atMs {
			continue
		}
		if sc.planned && call.Arguments == "" {
			call.ID, call.Arguments = sc.delivered.CallID, sc.delivered.Arguments
		}
		call.LatencyMs = min(atMs-sc.dispatchMs+cutMarginMs, faults.DurationMsMax)
		if sc.planned {
			d.note(seq, "tool call %s had no result by %d ms, though planned to end sooner: the replay's runs longer", id, d.rel(atMs))
		}
	}
}

// poolLimit is the pool limit the log's parallel calls imply: when a call of a pool started
// only as another ended, the number running then; otherwise the spec's default, or more when
// more ran at once. Only turnsim's own tool names say which calls are parallel.
func (d *deriver) poolLimit() int {
	observed, bound := 1, 0
	for _, s := range d.steps {
		var group []*stepCall
		for _, id := range s.order {
			sc := s.calls[id]
			if !slices.Contains(faults.ParallelTools, d.plan.Answers[sc.answer].Calls[sc.index].Name) {
				group = group[:0]
				continue
			}
			if sc.aborted {
				// The abort kept it from starting: had the pool room, it would have started with
				// the calls before it, so the pool was full of those still running then.
				if inFlight := stillRunning(group); len(group) > 0 && (bound == 0 || inFlight < bound) {
					bound = inFlight
				}
				group = group[:0]
				continue
			}
			group = append(group, sc)
			j := len(group) - 1
			running := 1
			for _, o := range group[:j] {
				if o.endMs > sc.dispatchMs {
					running++
				}
			}
			observed = max(observed, running)
			if j == 0 || sc.dispatchMs == group[j-1].dispatchMs {
				continue
			}
			// A call waited for a slot when one ended as it started: an earlier call whose result
			// the log has before it (committed as it ended), or, after a gap longer than a sync,
			// one planned to end then.
			gap := sc.dispatchMs - group[j-1].dispatchMs
			freed, inFlight := false, 0
			for _, o := range group[:j] {
				if o.endMs >= sc.dispatchMs-poolSlackMs {
					inFlight++
					ended := o.endMs <= sc.dispatchMs+1
					freed = freed || ended && (o.resulted && o.resultSeq < sc.callSeq || gap > poolSlackMs)
				}
			}
			if freed && (bound == 0 || inFlight < bound) {
				bound = inFlight // it waited for a slot: the pool was full
			}
		}
	}
	if bound >= observed {
		return bound
	}
	return max(observed, faults.SpecMaxParallelToolCalls)
}

// stillRunning is how many calls of group were running when its last call was dispatched.
func stillRunning(group []*stepCall) int {
	if len(group) == 0 {
		return 0
	}
	last, n := group[len(group)-1].dispatchMs, 0
	for _, sc := range group {
		if sc.endMs > last || sc == group[len(group)-1] {
			n++
		}
	}
	return n
}

// poolSlackMs is how close a call's planned end must come to another's dispatch for the one to
// have freed the other's slot: a real dispatch waits on the file store's sync too.
const poolSlackMs = 5
