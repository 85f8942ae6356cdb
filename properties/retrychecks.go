package properties

import (
	"slices"

	"github.com/turnsim/turnsim/harness"
)

// The harness waits only for llm-retry's backoff, right after writing llm/retry, so the i-th
// wait of the trace belongs to the i-th llm/retry of the log.

func checkDurableBeforeWait(x *index, v *violations) {
	waits := x.run.Trace.Waits
	if len(waits) != len(x.retries) {
		v.add(0, -1, "%d backoff waits but %d llm/retry events: every wait needs its record, written first", len(waits), len(x.retries))
	}
	for i := range min(len(waits), len(x.retries)) {
		w, r := waits[i], x.retries[i]
		switch {
		case w.SeqBefore < r.seq:
			v.add(r.seq, r.timeMs, "llm/retry #%d of turn %d step %d was written after its wait began at +%.3fs", r.data.Retry, r.data.Turn, r.data.Step, float64(w.StartMs)/1000)
		case w.StartMs != r.timeMs:
			v.add(r.seq, r.timeMs, "llm/retry #%d was written at +%.3fs but its wait began at +%.3fs", r.data.Retry, float64(r.timeMs)/1000, float64(w.StartMs)/1000)
		case w.DelayMs != r.data.DelayMs:
			v.add(r.seq, r.timeMs, "llm/retry #%d records delayMs %g but the wait was %g ms", r.data.Retry, r.data.DelayMs, w.DelayMs)
		}
	}
}

func checkRetryStartedOnTime(x *index, v *violations) {
	waits := x.run.Trace.Waits
	started := map[[2]any]eventAt[harness.LlmRetryStarted]{}
	for _, s := range x.started {
		started[[2]any{s.data.RetryID, s.data.Retry}] = s
	}
	for i, r := range x.retries {
		s, ok := started[[2]any{r.data.RetryID, r.data.Retry}]
		if ok && s.timeMs-r.timeMs != int64(r.data.DelayMs) {
			v.add(s.seq, s.timeMs, "llm/retry-started #%d came %d ms after its llm/retry, not delayMs %g", r.data.Retry, s.timeMs-r.timeMs, r.data.DelayMs)
		}
		if i >= len(waits) {
			continue
		}
		w := waits[i]
		turn := x.turns[r.data.Turn]
		cancelledByTurn := turn != nil && turn.end != nil && turn.end.Reason.Kind == harness.EndAborted && turn.endMs <= w.StartMs+int64(w.DelayMs)
		switch {
		case ok && w.Cancelled:
			v.add(s.seq, s.timeMs, "llm/retry-started #%d written although its wait was cancelled", r.data.Retry)
		case !ok && !w.Cancelled && !cancelledByTurn && !x.broken(r.data.Turn):
			v.add(r.seq, r.timeMs, "llm/retry #%d's wait ran out uncancelled, but no llm/retry-started followed", r.data.Retry)
		}
	}
}

// usedLocalDelay reports whether llm-retry computed r's delay itself rather than taking the
// provider's Retry-After.
func usedLocalDelay(p harness.RetryPolicy, r harness.LlmRetry) bool {
	return !r.Failure.HasRetryAfter() || r.Failure.ProviderRetryAfterMs > p.MaxDelayMs
}

func checkDelayInWindow(x *index, v *violations) {
	p := x.run.Policy
	for _, r := range x.retries {
		if !usedLocalDelay(p, r.data) {
			continue
		}
		low, high := harness.DelayWindowMs(p, r.data.Retry)
		if r.data.DelayMs < low || r.data.DelayMs > high || r.data.DelayMs > p.MaxDelayMs {
			v.add(r.seq, r.timeMs, "retry #%d waits %g ms, outside the window [%g, %g]", r.data.Retry, r.data.DelayMs, low, high)
		}
	}
}

func checkRetryAfterExact(x *index, v *violations) {
	p := x.run.Policy
	for _, r := range x.retries {
		if usedLocalDelay(p, r.data) {
			continue
		}
		if r.data.DelayMs != r.data.Failure.ProviderRetryAfterMs {
			v.add(r.seq, r.timeMs, "retry #%d waits %g ms although the provider said %g ms", r.data.Retry, r.data.DelayMs, r.data.Failure.ProviderRetryAfterMs)
		}
	}
}

func retryable(p harness.RetryPolicy, code string) bool {
	codes := p.RetryableCodes
	if len(codes) == 0 {
		codes = harness.DefaultRetryableCodes
	}
	return slices.Contains(codes, code)
}

func checkNormalGivesUp(x *index, v *violations) {
	p := x.run.Policy
	if p.Mode != harness.ModeNormal {
		return
	}
	for _, r := range x.retries {
		f := r.data.Failure
		if !retryable(p, f.Code) {
			v.add(r.seq, r.timeMs, "normal mode retried the non-retryable code %s", f.Code)
		}
		if f.HasRetryAfter() && f.ProviderRetryAfterMs > p.MaxDelayMs {
			v.add(r.seq, r.timeMs, "normal mode retried although Retry-After %g ms is above maxDelay %g", f.ProviderRetryAfterMs, p.MaxDelayMs)
		}
	}
	// The other side: a turn that ended on a retryable failure must have had a reason to stop.
	for _, n := range x.turnOrder {
		t := x.turns[n]
		if t.end == nil || t.end.Reason.Kind != harness.EndError || x.broken(n) || x.pluginEndedBefore(t.endMs) {
			continue
		}
		f := t.end.Reason.Error
		if !retryable(p, f.Code) || (f.HasRetryAfter() && f.ProviderRetryAfterMs > p.MaxDelayMs) {
			continue
		}
		last := t.stepOrder[len(t.stepOrder)-1]
		spent := 0
		for _, r := range x.retries {
			if r.data.Turn == n && r.data.Step == last {
				spent = max(spent, r.data.Retry)
			}
		}
		if spent < p.MaxRetries {
			v.add(t.endSeq, t.endMs, "turn %d gave up on retryable %s after %d of %d retries", n, f.Code, spent, p.MaxRetries)
		}
	}
}

func checkAlwaysPersists(x *index, v *violations) {
	if x.run.Policy.Mode != harness.ModeAlways {
		return
	}
	for _, n := range x.turnOrder {
		t := x.turns[n]
		if t.end == nil || t.end.Reason.Kind != harness.EndError || x.broken(n) || x.pluginEndedBefore(t.endMs) {
			continue
		}
		v.add(t.endSeq, t.endMs, "always mode let turn %d end in error (%s: %s)", n, t.end.Reason.Error.Code, t.end.Reason.Error.Message)
	}
}

func checkRetryBudget(x *index, v *violations) {
	p := x.run.Policy
	if p.Mode != harness.ModeNormal {
		return
	}
	requests := map[[2]int]int{}
	for _, r := range x.run.Trace.Requests {
		requests[[2]int{r.Turn, r.Step}]++
	}
	allowed := 1 + p.MaxRetries + x.run.CompactionBudget
	for key, n := range requests {
		if n > allowed {
			v.add(0, -1, "turn %d step %d sent %d requests; normal mode allows %d", key[0], key[1], n, allowed)
		}
	}
}

func checkRetryIDContinuity(x *index, v *violations) {
	type chain struct {
		turn, step       int
		provider, policy string
	}
	ids := map[chain]string{}
	counts := map[chain]int{}
	owners := map[string]chain{}
	for _, r := range x.retries {
		c := chain{r.data.Turn, r.data.Step, r.data.Provider, r.data.PolicyKey}
		if id, ok := ids[c]; ok && id != r.data.RetryID {
			v.add(r.seq, r.timeMs, "retry #%d of a chain changed retryId from %s to %s", r.data.Retry, id, r.data.RetryID)
		}
		if owner, ok := owners[r.data.RetryID]; ok && owner != c {
			v.add(r.seq, r.timeMs, "retryId %s is shared by two chains", r.data.RetryID)
		}
		if r.data.Retry != counts[c]+1 {
			v.add(r.seq, r.timeMs, "retry #%d follows retry #%d of its chain", r.data.Retry, counts[c])
		}
		ids[c], owners[r.data.RetryID], counts[c] = r.data.RetryID, c, r.data.Retry
	}
}

func checkCancelEndsWait(x *index, v *violations) {
	waits := x.run.Trace.Waits
	for i := range min(len(waits), len(x.retries)) {
		w, r := waits[i], x.retries[i]
		t := x.turns[r.data.Turn]
		if t == nil {
			continue
		}
		for _, c := range x.cancelsOf(t) {
			if c.AtMs < w.StartMs || c.AtMs >= w.StartMs+int64(w.DelayMs) || c.SeqAt < r.seq {
				continue
			}
			if w.EndMs != c.AtMs {
				v.add(r.seq, c.AtMs, "a %s cancel at +%.3fs landed in retry #%d's wait, which ended only at +%.3fs", c.Kind, float64(c.AtMs)/1000, r.data.Retry, float64(w.EndMs)/1000)
			} else if t.end != nil && t.endMs != c.AtMs {
				v.add(t.endSeq, t.endMs, "turn %d, cancelled at +%.3fs mid-backoff, ended only at +%.3fs", t.number, float64(c.AtMs)/1000, float64(t.endMs)/1000)
			}
			break
		}
		for _, c := range x.run.Trace.Cancels {
			if c.Kind == pluginEnd && c.AtMs >= w.StartMs && c.AtMs < w.StartMs+int64(w.DelayMs) && w.EndMs > c.AtMs {
				v.add(r.seq, c.AtMs, "the plugin's lifetime ended at +%.3fs inside retry #%d's wait, which went on to +%.3fs", float64(c.AtMs)/1000, r.data.Retry, float64(w.EndMs)/1000)
			}
		}
	}
}
