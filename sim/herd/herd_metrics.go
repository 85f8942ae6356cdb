package herd

// What a herd measured, and the properties every policy must keep, checked on every agent's log.

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/sim/sched"
)

// Metric resolutions.
const (
	// LoadBucketMs is the width of a load bucket, and of the window of PeakPer100Ms.
	LoadBucketMs = 100
	// GoodputBucketMs is the width of a goodput bucket.
	GoodputBucketMs = 1000
	// herdViolationsMax bounds the violations a result lists; the count goes on.
	herdViolationsMax = 20
)

// Result is what one herd measured.
type Result struct {
	Agents int `json:"agents"`
	// StrategyKey is the shared strategy's key.
	StrategyKey string `json:"strategyKey"`
	// Attempts is every request the provider received; LogicalRequests the turns started (one
	// per followup); Amplification their ratio.
	Attempts        int     `json:"attempts"`
	LogicalRequests int     `json:"logicalRequests"`
	Amplification   float64 `json:"amplification"`
	// Retries counts llm/retry events.
	Retries int `json:"retries"`
	// Completed counts turns that ended completed; GaveUp turns that ended in error (the policy
	// gave up); Unfinished turns still open when the run ended (only after a finding).
	Completed  int `json:"completed"`
	GaveUp     int `json:"gaveUp"`
	Unfinished int `json:"unfinished"`
	// FailuresByCode counts the provider's refusals and conflicts by code.
	FailuresByCode map[string]int `json:"failuresByCode"`
	// CompletionP50Ms and CompletionP99Ms are percentiles (nearest rank) of completed turns'
	// durations, turn/start to turn/end; a turn that gave up is counted in GaveUp instead.
	CompletionP50Ms float64 `json:"completionP50Ms"`
	CompletionP99Ms float64 `json:"completionP99Ms"`
	// PeakPer100Ms is the most requests that arrived in any 100 ms window.
	PeakPer100Ms int `json:"peakPer100Ms"`
	// FinishMs is the virtual time at which the last turn ended.
	FinishMs float64 `json:"finishMs"`
	// GoodputPerSecond is the successful requests per 1 s bucket, from the start.
	GoodputPerSecond []int `json:"goodputPerSecond"`
	// LoadPer100Ms is the requests per 100 ms bucket, from the start: the chart's data.
	LoadPer100Ms []int `json:"loadPer100Ms"`
	// Handoffs is the scheduler's decisions, for speed metrics.
	Handoffs int `json:"handoffs"`
	// Violations lists (up to 20 of) the broken properties: a log the invariant layer refuses, a
	// delay that is not finite, negative or above the strategy's cap, more retries in a chain than
	// its budget, a wait that did not last its delay, a mode other than the strategy's, an
	// agent/error. ViolationCount counts them all.
	Violations     []string `json:"violations"`
	ViolationCount int      `json:"violationCount"`
	// Findings is why the run ended early, if it did (a virtual-time limit, a deadlock).
	Findings []string `json:"findings"`
	// Logs holds every agent's session log, with Options.KeepLogs.
	Logs [][]harness.Event `json:"-"`
}

// GoodputMean is the successful requests per second of the run, start to finish.
func (r Result) GoodputMean() float64 {
	if r.FinishMs <= 0 {
		return 0
	}
	successes := 0
	for _, n := range r.GoodputPerSecond {
		successes += n
	}
	return float64(successes) / (r.FinishMs / 1000)
}

// summariseHerd measures the run and checks every agent's log.
func summariseHerd(opts Options, strategy harness.RetryStrategy, p *herdProvider, agents []*herdAgent, report *sched.RunReport) Result {
	r := Result{
		Agents:         opts.Agents,
		StrategyKey:    strategy.Key(),
		Attempts:       len(p.requests),
		FailuresByCode: p.failures,
		Handoffs:       report.Handoffs,
		Violations:     []string{},
		Findings:       []string{},
	}
	for _, f := range report.Findings {
		r.Findings = append(r.Findings, f.Kind+": "+f.Message) // not f.String(): it lists every task
	}
	violate := func(format string, args ...any) {
		r.ViolationCount++
		if len(r.Violations) < herdViolationsMax {
			r.Violations = append(r.Violations, fmt.Sprintf(format, args...))
		}
	}
	var completions []float64
	var finishMs int64
	for i, h := range agents {
		if h.agent == nil {
			continue
		}
		events := h.agent.Session().Events()
		if opts.KeepLogs {
			r.Logs = append(r.Logs, events)
		}
		for _, e := range h.errs {
			violate("agent %d: %s", i, e)
		}
		if err := harness.ValidateLog(events); err != nil {
			violate("agent %d: the log breaks the invariant layer: %v", i, err)
		}
		t := tallyHerdLog(events, h.unwound, strategy, func(format string, args ...any) { violate("agent %d: "+format, append([]any{i}, args...)...) })
		r.LogicalRequests += t.started
		r.Completed += t.completed
		r.GaveUp += t.gaveUp
		r.Retries += t.retries
		r.Unfinished += t.started - t.completed - t.gaveUp - t.otherEnds
		completions = append(completions, t.completionsMs...)
		finishMs = max(finishMs, t.lastEndMs)
	}
	if r.LogicalRequests > 0 {
		r.Amplification = float64(r.Attempts) / float64(r.LogicalRequests)
	}
	slices.Sort(completions)
	r.CompletionP50Ms = nearestRank(completions, 0.50)
	r.CompletionP99Ms = nearestRank(completions, 0.99)
	r.FinishMs = float64(finishMs)
	r.PeakPer100Ms = peakInWindow(p.requests, LoadBucketMs*time.Millisecond)
	r.LoadPer100Ms = buckets(p.requests, LoadBucketMs*time.Millisecond)
	r.GoodputPerSecond = buckets(p.successes, GoodputBucketMs*time.Millisecond)
	return r
}

// herdTally is what one agent's log says.
type herdTally struct {
	started, completed, gaveUp, otherEnds, retries int
	completionsMs                                  []float64
	lastEndMs                                      int64
}

// tallyHerdLog counts one agent's turns and retries (a turn in unwound, settled as a finding
// ended the run, as unfinished), and checks the properties every policy
// must keep: each delay finite, ≥ 0 and ≤ the strategy's cap; the strategy's mode; in normal
// mode no more retries per chain than the budget; each wait lasting exactly its delay.
func tallyHerdLog(events []harness.Event, unwound map[int]bool, strategy harness.RetryStrategy, violate func(string, ...any)) herdTally {
	var t herdTally
	startedAt := map[int]int64{}
	type retryKey struct {
		id    string
		retry int
	}
	retriedAt := map[retryKey]harness.LlmRetry{}
	retriedTime := map[retryKey]int64{}
	for _, e := range events {
		switch d := e.Data.(type) {
		case harness.TurnStart:
			t.started++
			startedAt[d.Turn] = e.Time
		case harness.TurnEnd:
			if unwound[d.Turn] {
				continue // settled as the run was unwound after a finding: unfinished
			}
			switch d.Reason.Kind {
			case harness.EndCompleted:
				t.completed++
				t.completionsMs = append(t.completionsMs, float64(e.Time-startedAt[d.Turn]))
			case harness.EndError:
				t.gaveUp++
			default:
				t.otherEnds++
			}
			t.lastEndMs = max(t.lastEndMs, e.Time)
		case harness.LlmRetry:
			t.retries++
			switch {
			case math.IsNaN(d.DelayMs) || math.IsInf(d.DelayMs, 0) || d.DelayMs < 0:
				violate("retry %d of turn %d waits %g ms: not finite and ≥ 0", d.Retry, d.Turn, d.DelayMs)
			case d.DelayMs > strategy.CapMs():
				violate("retry %d of turn %d waits %g ms, above the strategy's cap %g", d.Retry, d.Turn, d.DelayMs, strategy.CapMs())
			}
			if d.Mode != strategy.Mode() {
				violate("retry %d of turn %d is in mode %s, the strategy's is %s", d.Retry, d.Turn, d.Mode, strategy.Mode())
			}
			if strategy.Mode() == harness.ModeNormal && d.Retry > strategy.Budget() {
				violate("retry %d of turn %d is beyond the budget of %d", d.Retry, d.Turn, strategy.Budget())
			}
			key := retryKey{d.RetryID, d.Retry}
			retriedAt[key], retriedTime[key] = d, e.Time
		case harness.LlmRetryStarted:
			key := retryKey{d.RetryID, d.Retry}
			if r, ok := retriedAt[key]; ok && e.Time-retriedTime[key] != int64(r.DelayMs) {
				violate("retry %d of turn %d started %d ms after its llm/retry, not its delay %g", d.Retry, d.Turn, e.Time-retriedTime[key], r.DelayMs)
			}
		}
	}
	return t
}

// nearestRank is the q-quantile of sorted values by the nearest-rank method (0 for none).
func nearestRank(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(q * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// peakInWindow is the most instants of times (ascending) within any window of width w.
func peakInWindow(times []time.Duration, w time.Duration) int {
	peak, first := 0, 0
	for last, at := range times {
		for at-times[first] >= w {
			first++
		}
		peak = max(peak, last-first+1)
	}
	return peak
}

// buckets counts times (ascending) per bucket of width w, from 0 to the last.
func buckets(times []time.Duration, w time.Duration) []int {
	counts := []int{}
	for _, at := range times {
		i := int(at / w)
		for len(counts) <= i {
			counts = append(counts, 0)
		}
		counts[i]++
	}
	return counts
}
