package properties

import "github.com/turnsim/turnsim/harness"

// The instant a backoff runs out. A cancel or a disposal due at the very instant llm-retry's
// wait ends may run before the plugin does, after its timer fired: the wait itself then ended
// uncancelled, and only the plugin's look at its step and its lifetime after the wait keeps the
// retry from going on. Times alone cannot tell the two orders apart (they are one millisecond);
// the log's order can: what a cancel saw of the log (Cancel.SeqAt) came before it.

// checkNoRetryStartedAfterCancel: no llm/retry-started is written after its step was cancelled,
// or the plugin disposed, while its wait ran, whatever the instant.
func checkNoRetryStartedAfterCancel(x *index, v *violations) {
	for _, s := range x.started {
		r, ok := x.retryFor(s.data)
		if !ok {
			continue
		}
		for _, c := range x.run.Trace.Cancels {
			if c.Down || c.SeqAt < r.seq || c.SeqAt >= s.seq {
				continue // the agent was down, or the cancel came before the record or after the start
			}
			ends := c.Kind == pluginEnd || c.Kind == harness.CauseDisposed || (c.Running && c.Turn == r.data.Turn)
			if ends {
				v.add(s.seq, s.timeMs, "llm/retry-started #%d of turn %d came after a %s cancel at +%.3fs that ended its wait's chain", s.data.Retry, s.data.Turn, c.Kind, float64(c.AtMs-x.run.StartMs)/1000)
				break
			}
		}
	}
}

// retryFor is the llm/retry that s starts: the same chain id and number.
func (x *index) retryFor(s harness.LlmRetryStarted) (eventAt[harness.LlmRetry], bool) {
	for i := len(x.retries) - 1; i >= 0; i-- {
		if r := &x.retries[i]; r.data.Retry == s.Retry && r.data.RetryID == s.RetryID {
			return *r, true
		}
	}
	return eventAt[harness.LlmRetry]{}, false
}
