package properties

import (
	"cmp"
	"fmt"
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
	t := x.turn(n)
	return t != nil && t.end != nil && t.end.Reason.Kind == harness.EndInterrupted
}

func checkDurableBeforeWait(x *index, v *violations) {
	for _, w := range x.run.Trace.Waits {
		r, ok := x.retryAt(x.waitAnchor(w))
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

// retryAt returns the llm/retry at seq (the last, should a broken log repeat a seq).
func (x *index) retryAt(seq int64) (eventAt[harness.LlmRetry], bool) {
	for i := len(x.retries) - 1; i >= 0; i-- {
		if x.retries[i].seq == seq {
			return x.retries[i], true
		}
	}
	return eventAt[harness.LlmRetry]{}, false
}

func checkRetryStartedOnTime(x *index, v *violations) {
	for _, r := range x.retries {
		s, ok := x.startedFor(r.data)
		if ok && !onTime(s.timeMs-r.timeMs, r.data.DelayMs, x.run.LateMs) {
			v.add(s.seq, s.timeMs, "llm/retry-started #%d came %d ms after its llm/retry, not delayMs %g%s", r.data.Retry, s.timeMs-r.timeMs, r.data.DelayMs, lateText(x.run.LateMs))
		}
		w, waited := x.waitFor(r.seq)
		if !waited || w.EndMs < 0 {
			continue // no trace (a log checked on its own), or the process died mid-wait
		}
		turn := x.turn(r.data.Turn)
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

// startedFor returns the llm/retry-started of r's chain id and number (the last, should a broken
// log repeat one). A run has a few, so they are searched rather than mapped: the map, keyed by
// a string and an int, was filled for every run and was most of retry-started-on-time's cost.
func (x *index) startedFor(r harness.LlmRetry) (eventAt[harness.LlmRetryStarted], bool) {
	for i := len(x.started) - 1; i >= 0; i-- {
		if s := &x.started[i]; s.data.Retry == r.Retry && s.data.RetryID == r.RetryID {
			return *s, true
		}
	}
	return eventAt[harness.LlmRetryStarted]{}, false
}

// onTime reports whether a wait of gotMs honoured delayMs: exactly in the simulator (lateMs 0);
// on real timers never early (beyond the millisecond the log's whole-ms times may shave off) and
// at most lateMs late.
func onTime(gotMs int64, delayMs float64, lateMs int64) bool {
	if lateMs <= 0 {
		return gotMs == int64(delayMs)
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

func checkRetryAfterExact(x *index, v *violations) {
	for _, r := range x.retries {
		p, known := x.policyFor(r.data)
		if !known || usedLocalDelay(p, r.data) {
			continue
		}
		if r.data.DelayMs != r.data.Failure.ProviderRetryAfterMs {
			v.add(r.seq, r.timeMs, "retry #%d waits %g ms although the provider said %g ms", r.data.Retry, r.data.DelayMs, r.data.Failure.ProviderRetryAfterMs)
		}
	}
}

func checkNormalGivesUp(x *index, v *violations) {
	p := x.run.Policy
	if p.Mode != harness.ModeNormal || x.run.Strategy != nil {
		return // the seed's own rules for giving up; a user's strategy has its own
	}
	for _, r := range x.retries {
		f := r.data.Failure
		if !retryableUnder(p, f.Code) {
			v.add(r.seq, r.timeMs, "normal mode retried the non-retryable code %s", f.Code)
		}
		if usableRetryAfter(f) && f.ProviderRetryAfterMs > p.MaxDelayMs {
			v.add(r.seq, r.timeMs, "normal mode retried although Retry-After %g ms is above maxDelay %g", f.ProviderRetryAfterMs, p.MaxDelayMs)
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
	// Each request's (turn, step), sorted (violations in a stable order): a step's requests are
	// then a run of equal keys, its count the run's length.
	var keysArray [32][2]int
	keys := keysArray[:0]
	for _, r := range x.run.Trace.Requests {
		keys = append(keys, [2]int{r.Turn, r.Step})
	}
	slices.SortFunc(keys, func(a, b [2]int) int { return cmp.Or(a[0]-b[0], a[1]-b[1]) })
	for i := 0; i < len(keys); {
		key, n := keys[i], 1
		for i+n < len(keys) && keys[i+n] == key {
			n++
		}
		i += n
		if allowed := 1 + budget + x.run.CompactionBudget + x.grantedIn(key[0], key[1]); n > allowed {
			v.add(0, -1, "turn %d step %d sent %d requests; normal mode allows %d", key[0], key[1], n, allowed)
		}
	}
}

// grantedIn counts the retries a user's handler granted in a turn's step: each one request more.
func (x *index) grantedIn(turn, step int) int {
	n := 0
	for _, r := range x.run.Trace.HandlerRetries {
		if r.Turn == turn && r.Step == step {
			n++
		}
	}
	return n
}

// retryChain names a chain of retries: the step it retries, and the provider and policy.
type retryChain struct {
	turn, step       int
	provider, policy string
}

// checkRetryIDContinuity follows each chain's id and count, and each id's chain, through the
// llm/retry records. A run has a few chains and ids, searched in lists that start on the stack
// rather than mapped: the maps (three, keyed by strings) were most of the property's cost.
func checkRetryIDContinuity(x *index, v *violations) {
	type chainState struct {
		chain retryChain
		id    string // the chain's last retryId
		count int    // its last retry's number
	}
	type owner struct {
		id    string
		chain retryChain // the last chain to use the id
	}
	var chainsArray [8]chainState
	var ownersArray [8]owner
	chains, owners := chainsArray[:0], ownersArray[:0]
	for _, r := range x.retries {
		c := retryChain{r.data.Turn, r.data.Step, r.data.Provider, r.data.PolicyKey}
		state := -1
		for i := range chains {
			if chains[i].chain == c {
				state = i
				break
			}
		}
		if state >= 0 && chains[state].id != r.data.RetryID {
			v.add(r.seq, r.timeMs, "retry #%d of a chain changed retryId from %s to %s", r.data.Retry, chains[state].id, r.data.RetryID)
		}
		owned := -1
		for i := range owners {
			if owners[i].id == r.data.RetryID {
				owned = i
				break
			}
		}
		if owned >= 0 && owners[owned].chain != c {
			v.add(r.seq, r.timeMs, "retryId %s is shared by two chains", r.data.RetryID)
		}
		count := 0
		if state >= 0 {
			count = chains[state].count
		}
		if r.data.Retry != count+1 {
			v.add(r.seq, r.timeMs, "retry #%d follows retry #%d of its chain", r.data.Retry, count)
		}
		if state < 0 {
			chains = append(chains, chainState{chain: c})
			state = len(chains) - 1
		}
		chains[state].id, chains[state].count = r.data.RetryID, r.data.Retry
		if owned < 0 {
			owners = append(owners, owner{id: r.data.RetryID})
			owned = len(owners) - 1
		}
		owners[owned].chain = c
	}
}

func checkCancelEndsWait(x *index, v *violations) {
	for _, r := range x.retries {
		w, ok := x.waitFor(r.seq)
		t := x.turn(r.data.Turn)
		if !ok || w.EndMs < 0 || t == nil {
			continue
		}
		for _, c := range x.cancelsOf(t) {
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
		r := &x.run.Trace.Requests[i] // not a copy of each request searched
		if r.Turn == turn && r.Step == step && r.Failed && r.EndMs == atMs && r.EndSeq < seq {
			return *r, true
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
		if t.end == nil || t.end.Reason.Kind != harness.EndError || len(t.steps) == 0 || x.refusedIn(n, 0) {
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
		if r.data.Failure.Code != harness.CodeContextWindowExceeded {
			continue
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
