package properties

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/turnsim/turnsim/harness"
)

// The harness waits only for llm-retry's backoff, right after writing llm/retry: a wait belongs to
// the llm/retry whose seq is the log's length when the wait began.

// waitFor returns the wait that began right after the llm/retry at seq.
func (x *index) waitFor(seq int64) (Wait, bool) {
	for _, w := range x.run.Trace.Waits {
		if x.waitAnchor(w) == seq {
			return w, true
		}
	}
	return Wait{}, false
}

// interrupted reports whether turn n ended interrupted (crash repair closed it).
func (x *index) interrupted(n int) bool {
	t := x.turns[n]
	return t != nil && t.end != nil && t.end.Reason.Kind == harness.EndInterrupted
}

func checkDurableBeforeWait(x *index, v *violations) {
	retryAt := map[int64]eventAt[harness.LlmRetry]{} // each llm/retry by its seq
	for _, r := range x.retries {
		retryAt[r.seq] = r
	}
	for _, w := range x.run.Trace.Waits {
		r, ok := retryAt[x.waitAnchor(w)]
		switch {
		case !ok:
			v.add(0, w.StartMs, "a backoff wait began at +%.3fs with no llm/retry written just before it", float64(w.StartMs)/1000)
		case w.StartMs != r.timeMs:
			v.add(r.seq, r.timeMs, "llm/retry #%d was written at +%.3fs but its wait began at +%.3fs", r.data.Retry, float64(r.timeMs)/1000, float64(w.StartMs)/1000)
		case w.DelayMs != r.data.DelayMs:
			v.add(r.seq, r.timeMs, "llm/retry #%d records delayMs %g but the wait was %g ms", r.data.Retry, r.data.DelayMs, w.DelayMs)
		}
	}
	for _, r := range x.retries {
		if _, ok := x.waitFor(r.seq); !ok && !x.interrupted(r.data.Turn) {
			v.add(r.seq, r.timeMs, "llm/retry #%d of turn %d step %d was never waited", r.data.Retry, r.data.Turn, r.data.Step)
		}
	}
}

func checkRetryStartedOnTime(x *index, v *violations) {
	// A retry's llm/retry-started names its chain's id and its number.
	type retryKey struct {
		id    string
		retry int
	}
	started := map[retryKey]eventAt[harness.LlmRetryStarted]{}
	for _, s := range x.started {
		started[retryKey{s.data.RetryID, s.data.Retry}] = s
	}
	for _, r := range x.retries {
		s, ok := started[retryKey{r.data.RetryID, r.data.Retry}]
		if ok && !onTime(s.timeMs-r.timeMs, r.data.DelayMs, x.run.LateMs) {
			v.add(s.seq, s.timeMs, "llm/retry-started #%d came %d ms after its llm/retry, not delayMs %g%s", r.data.Retry, s.timeMs-r.timeMs, r.data.DelayMs, lateText(x.run.LateMs))
		}
		w, waited := x.waitFor(r.seq)
		if !waited || w.EndMs < 0 {
			continue // no trace (a log checked on its own), or the process died mid-wait
		}
		turn := x.turns[r.data.Turn]
		endedEarly := turn != nil && turn.end != nil && ((turn.end.Reason.Kind == harness.EndAborted && turn.endMs <= w.StartMs+int64(w.DelayMs)) || turn.end.Reason.Kind == harness.EndInterrupted)
		// A cancel in the very instant the wait ran out beats the retry, even when no aborted
		// turn/end says so (the store refused it).
		endedEarly = endedEarly || (turn != nil && x.cancelledBy(turn, w.EndMs))
		switch {
		case ok && w.Cancelled:
			v.add(s.seq, s.timeMs, "llm/retry-started #%d written although its wait was cancelled", r.data.Retry)
		case !ok && !w.Cancelled && !endedEarly && !x.refusedIn(r.data.Turn, r.data.Step, harness.TypeLlmRetryStarted) && !x.pluginEndedBefore(w.EndMs):
			v.add(r.seq, r.timeMs, "llm/retry #%d's wait ran out uncancelled, but no llm/retry-started followed", r.data.Retry)
		}
	}
}

// onTime reports whether a wait of gotMs honoured delayMs: exactly in the simulator (lateMs 0),
// as far as whole-millisecond log times tell (a fractional delay, a provider's Retry-After used as
// given, spans its floor or its ceiling, by where in its millisecond the wait began); on real
// timers never early (beyond the millisecond the log's whole-ms times may shave off) and at most
// lateMs late.
func onTime(gotMs int64, delayMs float64, lateMs int64) bool {
	if lateMs <= 0 {
		return float64(gotMs) == math.Floor(delayMs) || float64(gotMs) == math.Ceil(delayMs)
	}
	return gotMs >= int64(delayMs)-1 && gotMs <= int64(delayMs)+lateMs
}

// lateText names the tolerance in a violation, when there was one.
func lateText(lateMs int64) string {
	if lateMs <= 0 {
		return ""
	}
	return fmt.Sprintf(" (late by at most %d ms allowed)", lateMs)
}

// usedLocalDelay reports whether llm-retry computed r's delay itself rather than taking the
// provider's Retry-After.
func usedLocalDelay(p harness.RetryPolicy, r harness.LlmRetry) bool {
	return !usableRetryAfter(r.Failure) || r.Failure.ProviderRetryAfterMs > p.MaxDelayMs
}

// policyFor is the policy r's chain ran under: the run's, or, for a log checked on its own, the
// one its policyKey spells out.
func (x *index) policyFor(r harness.LlmRetry) (harness.RetryPolicy, bool) {
	switch {
	case x.run.Strategy != nil:
		return harness.RetryPolicy{}, false // a user's strategy: the seed's formula does not apply
	case x.run.Policy.Mode != "":
		return x.run.Policy, true
	}
	return policyFromKey(r.PolicyKey)
}

// limitsFor are the mode, budget and cap r's chain ran under, whatever the strategy.
func (x *index) limitsFor(r harness.LlmRetry) (mode harness.Mode, budget int, capMs float64, known bool) {
	if s := x.run.Strategy; s != nil {
		return s.Mode, s.Budget, s.CapMs, true
	}
	p, ok := x.policyFor(r)
	return p.Mode, p.MaxRetries, p.MaxDelayMs, ok
}

// runMode is the mode the run's retries used.
func (x *index) runMode() harness.Mode {
	if s := x.run.Strategy; s != nil {
		return s.Mode
	}
	return x.run.Policy.Mode
}

func checkDelayWithinCap(x *index, v *violations) {
	for _, r := range x.retries {
		_, _, capMs, known := x.limitsFor(r.data)
		d := r.data.DelayMs
		if !known {
			continue
		}
		if math.IsNaN(d) || math.IsInf(d, 0) || d < 0 || d > capMs {
			v.add(r.seq, r.timeMs, "retry #%d waits %g ms: not finite, ≥ 0 and ≤ the cap %g", r.data.Retry, d, capMs)
		}
	}
}

func checkDelayInWindow(x *index, v *violations) {
	for _, r := range x.retries {
		p, known := x.policyFor(r.data)
		if !known || !usedLocalDelay(p, r.data) {
			continue
		}
		low, high := specDelayWindowMs(p, r.data.Retry)
		if r.data.DelayMs < low || r.data.DelayMs > high || r.data.DelayMs > p.MaxDelayMs {
			v.add(r.seq, r.timeMs, "retry #%d waits %g ms, outside the window [%g, %g]", r.data.Retry, r.data.DelayMs, low, high)
		}
	}
}

// retryAfterFor is how r's chain treats a provider's Retry-After: the spec's rule under the
// seed's policy, or what the run's strategy states (the strictest, when it states nothing).
func (x *index) retryAfterFor(r harness.LlmRetry) (harness.RetryAfterUse, bool) {
	if s := x.run.Strategy; s != nil {
		if s.RetryAfter.Within == "" {
			return harness.RetryAfterUse{Within: harness.RetryAfterExact, LimitMs: s.CapMs, GivesUpBeyond: true}, true
		}
		return s.RetryAfter, true
	}
	p, ok := x.policyFor(r)
	if !ok {
		return harness.RetryAfterUse{}, false
	}
	return specRetryAfter(p), true
}

// hintRules reports whether r's delay is the provider's Retry-After's to decide, by the
// statement use: a usable hint within its limit that the strategy consults.
func hintRules(use harness.RetryAfterUse, r harness.LlmRetry) bool {
	return use.Within != harness.RetryAfterIgnored && usableRetryAfter(r.Failure) && r.Failure.ProviderRetryAfterMs <= use.LimitMs
}

func checkRetryAfterExact(x *index, v *violations) {
	for _, r := range x.retries {
		use, known := x.retryAfterFor(r.data)
		if !known || !hintRules(use, r.data) {
			continue
		}
		hint, delay := r.data.Failure.ProviderRetryAfterMs, r.data.DelayMs
		switch {
		case use.Within == harness.RetryAfterExact && delay != hint:
			v.add(r.seq, r.timeMs, "retry #%d waits %g ms although the provider said %g ms (used exactly up to %g ms, as stated)", r.data.Retry, delay, hint, use.LimitMs)
		case use.Within == harness.RetryAfterAtLeast && !(delay >= hint):
			v.add(r.seq, r.timeMs, "retry #%d waits %g ms although the provider said %g ms (waited at least up to %g ms, as stated)", r.data.Retry, delay, hint, use.LimitMs)
		}
	}
}

func checkNormalGivesUp(x *index, v *violations) {
	// Every strategy: a hint beyond the limit it states it gives up at is never retried.
	for _, r := range x.retries {
		mode, _, _, known := x.limitsFor(r.data)
		use, stated := x.retryAfterFor(r.data)
		f := r.data.Failure
		if !known || !stated || mode != harness.ModeNormal || use.Within == harness.RetryAfterIgnored || !use.GivesUpBeyond {
			continue
		}
		if usableRetryAfter(f) && f.ProviderRetryAfterMs > use.LimitMs {
			v.add(r.seq, r.timeMs, "normal mode retried although Retry-After %g ms is above %g, where it gives up", f.ProviderRetryAfterMs, use.LimitMs)
		}
	}
	p := x.run.Policy
	if p.Mode != harness.ModeNormal || x.run.Strategy != nil {
		return // the seed's own codes and budget; a user's strategy has its own
	}
	for _, r := range x.retries {
		if f := r.data.Failure; !retryableUnder(p, f.Code) {
			v.add(r.seq, r.timeMs, "normal mode retried the non-retryable code %s", f.Code)
		}
	}
	// The other side: a turn that ended on a retryable failure must have had a reason to stop.
	for _, t := range x.turnList {
		n := t.number
		if t.end == nil || t.end.Reason.Kind != harness.EndError || x.refusedIn(n, 0, harness.TypeLlmRetry, harness.TypeLlmRetryStarted) || x.pluginEndedBefore(t.endMs) {
			continue // a refused llm/retry record makes llm-retry fail, and so give no retry
		}
		f := t.end.Reason.Error
		if !retryableUnder(p, f.Code) || (usableRetryAfter(*f) && f.ProviderRetryAfterMs > p.MaxDelayMs) {
			continue
		}
		if len(t.stepOrder) == 0 {
			continue // no step, so no request: the failure was no provider's, and llm-retry never saw it (a broken log)
		}
		last := t.lastStep()
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
	if x.run.Policy.Mode != harness.ModeAlways || x.run.Strategy != nil {
		return // a user's always-mode strategy may still choose to give up
	}
	for _, t := range x.turnList {
		n := t.number
		if t.end == nil || t.end.Reason.Kind != harness.EndError || x.refusedIn(n, 0) || x.pluginEndedBefore(t.endMs) {
			continue // a refused append is an infrastructure failure: it ends the turn in error
		}
		if x.goexitIn(n) {
			continue // no failure to retry: the provider ended the turn's goroutine itself
		}
		v.add(t.endSeq, t.endMs, "always mode let turn %d end in error (%s: %s)", n, t.end.Reason.Error.Code, t.end.Reason.Error.Message)
	}
}

func checkRetryBudget(x *index, v *violations) {
	budget := x.run.Policy.MaxRetries
	if s := x.run.Strategy; s != nil {
		budget = s.Budget
	}
	if x.runMode() != harness.ModeNormal {
		return
	}
	requests := map[[2]int]int{} // by turn and step
	for _, r := range x.run.Trace.Requests {
		requests[[2]int{r.Turn, r.Step}]++
	}
	granted := map[[2]int]int{} // by a user's handler: each one request more
	for _, r := range x.run.Trace.HandlerRetries {
		granted[[2]int{r.Turn, r.Step}]++
	}
	keys := slices.Collect(maps.Keys(requests))
	slices.SortFunc(keys, func(a, b [2]int) int { return cmp.Or(a[0]-b[0], a[1]-b[1]) }) // violations in a stable order
	for _, key := range keys {
		if n, allowed := requests[key], 1+budget+x.run.CompactionBudget+granted[key]; n > allowed {
			v.add(0, -1, "turn %d step %d sent %d requests; normal mode allows %d", key[0], key[1], n, allowed)
		}
	}
}

// retryChain names a chain of retries: the step it retries, and the provider and policy.
type retryChain struct {
	turn, step       int
	provider, policy string
}

// checkRetryIDContinuity follows each chain's id and count, and each id's chain, through the
// llm/retry records.
func checkRetryIDContinuity(x *index, v *violations) {
	ids := map[retryChain]string{}    // each chain's last retryId
	counts := map[retryChain]int{}    // each chain's last retry number
	owners := map[string]retryChain{} // the last chain to use each retryId
	for _, r := range x.retries {
		c := retryChain{r.data.Turn, r.data.Step, r.data.Provider, r.data.PolicyKey}
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
	for _, r := range x.retries {
		w, ok := x.waitFor(r.seq)
		t := x.turns[r.data.Turn]
		if !ok || w.EndMs < 0 || t == nil {
			continue
		}
		for _, c := range t.cancels {
			if c.AtMs < w.StartMs || c.AtMs >= w.StartMs+int64(w.DelayMs) || c.SeqAt < r.seq {
				continue
			}
			if w.EndMs != c.AtMs {
				v.add(r.seq, c.AtMs, "a %s cancel at +%.3fs landed in retry #%d's wait, which ended only at +%.3fs", c.Kind, float64(c.AtMs)/1000, r.data.Retry, float64(w.EndMs)/1000)
			} else if t.end != nil && t.endMs != c.AtMs && t.end.Reason.Kind != harness.EndInterrupted {
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

// failedRequest returns the request of (turn, step) whose failure a record at atMs, at seq in the
// log, is about: the last one to fail at that instant before the record was written. Two
// attempts can fail in the same millisecond (a retry after no delay), and the record of the first
// is written before the second is sent; a request whose log position is not known (EndSeq 0)
// counts as before every record.
func (x *index) failedRequest(turn, step int, atMs, seq int64) (Request, bool) {
	for i := len(x.run.Trace.Requests) - 1; i >= 0; i-- {
		r := x.run.Trace.Requests[i]
		if r.Turn == turn && r.Step == step && r.Failed && r.EndMs == atMs && r.EndSeq < seq {
			return r, true
		}
	}
	return Request{}, false
}

// faithful says what is wrong with recorded as the record of the provider failure sent, or "".
func faithful(recorded harness.Failure, sent Request) string {
	hint := 0.0
	if sent.RetryAfterMs > 0 {
		hint = sent.RetryAfterMs
	}
	switch {
	case recorded.Code != sent.FailCode:
		return fmt.Sprintf("recorded code %s, but the provider failed with %s", recorded.Code, sent.FailCode)
	case recorded.ProviderRetryAfterMs != hint:
		return fmt.Sprintf("recorded Retry-After %g ms, but the provider sent %g ms", recorded.ProviderRetryAfterMs, sent.RetryAfterMs)
	case sent.FailStatus >= 100 && sent.FailStatus <= 599 && recorded.Status != sent.FailStatus:
		return fmt.Sprintf("recorded status %d, but the provider sent %d", recorded.Status, sent.FailStatus)
	case sent.FailText != "" && recorded.Message != sent.FailText:
		return fmt.Sprintf("recorded message %q, but the error the provider returned reads, with its causes, %q", recorded.Message, sent.FailText)
	}
	return ""
}

func checkFailureRecordedFaithfully(x *index, v *violations) {
	for _, r := range x.retries {
		if sent, ok := x.failedRequest(r.data.Turn, r.data.Step, r.timeMs, r.seq); ok {
			if what := faithful(r.data.Failure, sent); what != "" {
				v.add(r.seq, r.timeMs, "llm/retry #%d: %s", r.data.Retry, what)
			}
		}
	}
	for _, t := range x.turnList {
		n := t.number
		if t.end == nil || t.end.Reason.Kind != harness.EndError || len(t.stepOrder) == 0 || x.refusedIn(n, 0) {
			continue
		}
		if sent, ok := x.failedRequest(n, t.lastStep(), t.endMs, t.endSeq); ok {
			if what := faithful(*t.end.Reason.Error, sent); what != "" {
				v.add(t.endSeq, t.endMs, "turn %d's error: %s", n, what)
			}
		}
	}
}

func checkAlwaysDefersDownstream(x *index, v *violations) {
	if x.runMode() != harness.ModeAlways || x.run.CompactionBudget == 0 {
		return
	}
	for _, r := range x.retries {
		if r.data.Failure.Code != harness.CodeContextWindowExceeded || x.handlerFailedAt(r.data.Turn, r.data.Step, r.timeMs) {
			continue // a compaction that failed answered nothing: always mode retries on its own
		}
		failures := 0
		for _, q := range x.run.Trace.Requests {
			if q.Turn == r.data.Turn && q.Step == r.data.Step && q.FailCode == harness.CodeContextWindowExceeded && q.EndMs <= r.timeMs {
				failures++
			}
		}
		if failures <= x.run.CompactionBudget {
			v.add(r.seq, r.timeMs, "always mode retried CONTEXT_WINDOW_EXCEEDED itself (failure %d of the step) while compaction still had budget %d", failures, x.run.CompactionBudget)
		}
	}
}

// handlerFailedAt reports whether a request-error handler failed over the step's failure at atMs.
func (x *index) handlerFailedAt(turn, step int, atMs int64) bool {
	for _, f := range x.run.Trace.HandlerFailures {
		if f.Turn == turn && f.Step == step && f.AtMs == atMs {
			return true
		}
	}
	return false
}
