package properties

import (
	"bytes"
	"slices"

	"github.com/turnsim/turnsim/harness"
)

func checkNoAcknowledgedLoss(x *index, v *violations) {
	for _, r := range x.run.Trace.Restarts {
		if r.Err != "" {
			v.add(0, r.AtMs, "%s", r.Err)
		}
	}
	for _, acknowledged := range x.run.Trace.Acknowledged {
		for i := range acknowledged {
			e := &acknowledged[i]
			if int(e.Seq) > len(x.run.Log) || !sameEvent(&x.run.Log[e.Seq-1], e) {
				v.add(e.Seq, e.Time, "event %d (%s) was acknowledged before a crash, but the log after it does not hold it", e.Seq, e.Type)
				break
			}
		}
	}
	// The last incarnation's events were acknowledged too: when the run is over, the synced
	// bytes begin with the log's JSON Lines, line for line.
	if durable := x.run.Trace.DurableAtEnd; durable != nil && !bytes.HasPrefix(durable, x.run.JSONL) {
		rest := durable
		for i, line := range bytes.SplitAfter(x.run.JSONL, []byte{'\n'}) {
			if !bytes.HasPrefix(rest, line) {
				e := x.run.Log[i]
				v.add(e.Seq, e.Time, "event %d (%s) was acknowledged, but at the end of the run the durable log does not hold it as written", e.Seq, e.Type)
				break
			}
			rest = rest[len(line):]
		}
	}
}

// checkInterruptedTurns holds each turn to the restarts' repairs. A run has a few restarts, so
// whether one repaired a turn is searched (repairedByRestart), not mapped.
func checkInterruptedTurns(x *index, v *violations) {
	for _, t := range x.turnList {
		n := t.number
		interrupted := t.end != nil && t.end.Reason.Kind == harness.EndInterrupted
		repaired := x.repairedByRestart(n)
		switch {
		case repaired && !interrupted:
			v.add(t.startSeq, t.startMs, "turn %d was open when the process died, but did not end interrupted", n)
		case interrupted && !repaired && len(x.run.Trace.Crashes) > 0:
			v.add(t.endSeq, t.endMs, "turn %d ended interrupted although no crash left it open", n)
		}
	}
}

// repairedByRestart reports whether a restart's crash repair closed turn n (n > 0: 0 is a
// restart's "none").
func (x *index) repairedByRestart(n int) bool {
	for _, r := range x.run.Trace.Restarts {
		if r.RepairedTurn > 0 && r.RepairedTurn == n {
			return true
		}
	}
	return false
}

// checkNoDoubleDispatch looks for a call dispatched twice in its step, and for a call run twice.
// A step's calls and a run's tool executions are few, so an earlier one with the same key is
// searched for (dispatchedBefore, ranBefore) rather than mapped: the two maps, keyed by two ints
// and a string, were most of the property's cost.
func checkNoDoubleDispatch(x *index, v *violations) {
	for ti, t := range x.turnList {
		// A turn or step number started twice (a broken log) is visited once per start, each time
		// as its last start's: the visits after the first find its calls dispatched before.
		turnSeen := x.repeats && slices.Contains(x.turnList[:ti], t)
		for si, ref := range t.steps {
			step, s := ref.number, ref.step
			seen := turnSeen || (x.repeats && slices.ContainsFunc(t.steps[:si], func(r stepRef) bool { return r.step == s }))
			for k, c := range s.calls {
				if !askedFor(s, c.data.CallID) {
					v.add(c.seq, c.timeMs, "call %s dispatched in turn %d step %d, whose answer did not ask for it (another step's call dispatched again?)", c.data.CallID, t.number, step)
				}
				if s.syntheticFor(c.data.CallID) {
					continue
				}
				if first, again := s.dispatchedBefore(k, seen); again {
					v.add(c.seq, c.timeMs, "call %s of turn %d step %d dispatched again (first at event %d)", c.data.CallID, t.number, step, first)
				}
			}
		}
	}
	// A run names the call the model asked for (its turn, step and id), wherever it was
	// dispatched: a call run again in a later step after a restart is the same call.
	tools := x.run.Trace.Tools
	for i, r := range tools {
		if ranBefore(tools[:i], r) {
			v.add(0, r.StartMs, "call %s of turn %d step %d ran twice", r.CallID, r.Turn, r.Step)
		}
	}
}

// dispatchedBefore returns the seq of the last dispatch of the id of s's call k before it: a
// call of s before k with that id, or, when s was visited before (seen), the last of s's calls
// with it (k's own, if none follows). Both are what a map from call to its last seq, filled as
// the steps are visited, held. Only a call with no synthetic result is asked about, and all of
// its id's calls are then counted: syntheticFor is a property of the id.
func (s *stepIndex) dispatchedBefore(k int, seen bool) (seq int64, ok bool) {
	id := s.calls[k].data.CallID
	for j := k - 1; j >= 0; j-- {
		if s.calls[j].data.CallID == id {
			return s.calls[j].seq, true
		}
	}
	if !seen {
		return 0, false
	}
	for j := len(s.calls) - 1; j >= k; j-- {
		if s.calls[j].data.CallID == id {
			return s.calls[j].seq, true
		}
	}
	return 0, false
}

// ranBefore reports whether one of earlier runs the call r runs (its turn, step and id).
func ranBefore(earlier []ToolRun, r ToolRun) bool {
	for i := range earlier {
		if e := &earlier[i]; e.CallID == r.CallID && e.Turn == r.Turn && e.Step == r.Step {
			return true
		}
	}
	return false
}

// checkChainBudget counts each chain's retries. A run has a few chains, so their counts are kept
// in a list that starts on the stack, searched from its newest chain (a chain's retries follow
// one another), rather than in a map keyed by two ints and two strings.
func checkChainBudget(x *index, v *violations) {
	type chainCount struct {
		chain retryChain
		count int
	}
	var countsArray [8]chainCount
	counts := countsArray[:0]
	for _, r := range x.retries {
		mode, budget, _, known := x.limitsFor(r.data)
		if !known || mode != harness.ModeNormal {
			continue
		}
		c := retryChain{r.data.Turn, r.data.Step, r.data.Provider, r.data.PolicyKey}
		k := len(counts) - 1
		for k >= 0 && counts[k].chain != c {
			k--
		}
		if k < 0 {
			counts = append(counts, chainCount{chain: c})
			k = len(counts) - 1
		}
		counts[k].count++
		if counts[k].count == budget+1 {
			v.add(r.seq, r.timeMs, "the chain of turn %d step %d holds %d retries, above its budget %d", c.turn, c.step, counts[k].count, budget)
		}
	}
}

// askedFor reports whether the answer of step s asked for a call with id: only such a call is
// dispatched in s (ids are unique per step only, so a call of another step may share it).
func askedFor(s *stepIndex, id string) bool {
	if s.message == nil {
		return false
	}
	for _, b := range s.message.Message.Blocks {
		if b.Type == harness.BlockToolCall && b.CallID == id {
			return true
		}
	}
	return false
}
