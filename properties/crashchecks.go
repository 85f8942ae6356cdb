package properties

import (
	"bytes"

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

// checkInterruptedTurns holds each turn to the restarts' crash repairs: a turn a repair closed
// ends interrupted, and only such a turn does.
func checkInterruptedTurns(x *index, v *violations) {
	repaired := map[int]bool{} // the turns a restart's crash repair closed
	for _, r := range x.run.Trace.Restarts {
		if r.RepairedTurn > 0 { // 0: the restart repaired none
			repaired[r.RepairedTurn] = true
		}
	}
	for _, t := range x.turnList {
		n := t.number
		interrupted := t.end != nil && t.end.Reason.Kind == harness.EndInterrupted
		switch {
		case repaired[n] && !interrupted:
			v.add(t.startSeq, t.startMs, "turn %d was open when the process died, but did not end interrupted", n)
		case interrupted && !repaired[n] && len(x.run.Trace.Crashes) > 0:
			v.add(t.endSeq, t.endMs, "turn %d ended interrupted although no crash left it open", n)
		}
	}
}

// checkNoDoubleDispatch looks for a call dispatched twice in its step, and for a call run twice.
func checkNoDoubleDispatch(x *index, v *violations) {
	dispatched := map[callKey]int64{} // each call's last dispatch, by its seq
	x.eachStep(func(t *turnIndex, step int, s *stepIndex) {
		for _, c := range s.calls {
			if !askedFor(s, c.data.CallID) {
				v.add(c.seq, c.timeMs, "call %s dispatched in turn %d step %d, whose answer did not ask for it (another step's call dispatched again?)", c.data.CallID, t.number, step)
			}
			if s.syntheticFor(c.data.CallID) {
				continue // the abort's tool/call of a call it kept from starting: no dispatch
			}
			key := callKey{t.number, step, c.data.CallID}
			if first, again := dispatched[key]; again {
				v.add(c.seq, c.timeMs, "call %s of turn %d step %d dispatched again (first at event %d)", c.data.CallID, t.number, step, first)
			}
			dispatched[key] = c.seq
		}
	})
	// A run names the call the model asked for (its turn, step and id), wherever it was
	// dispatched: a call run again in a later step after a restart is the same call.
	ran := map[callKey]bool{}
	for _, r := range x.run.Trace.Tools {
		key := callKey{r.Turn, r.Step, r.CallID}
		if ran[key] {
			v.add(0, r.StartMs, "call %s of turn %d step %d ran twice", r.CallID, r.Turn, r.Step)
		}
		ran[key] = true
	}
}

// checkChainBudget counts each normal-mode chain's retries against its budget.
func checkChainBudget(x *index, v *violations) {
	count := map[retryChain]int{} // each chain's retries so far
	for _, r := range x.retries {
		mode, budget, _, known := x.limitsFor(r.data)
		if !known || mode != harness.ModeNormal {
			continue
		}
		c := retryChain{r.data.Turn, r.data.Step, r.data.Provider, r.data.PolicyKey}
		count[c]++
		if count[c] == budget+1 {
			v.add(r.seq, r.timeMs, "the chain of turn %d step %d holds %d retries, above its budget %d", c.turn, c.step, count[c], budget)
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
