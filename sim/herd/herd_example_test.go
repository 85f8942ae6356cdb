package herd_test

import (
	"fmt"
	"math"
	"sync"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/zoo"
	"github.com/turnsim/turnsim/sim/herd"
)

// retryBudget is a policy a user might want to try: full-jitter backoff, but the whole process
// may spend at most one retry for every ten requests (a retry budget, as Finagle has). It keeps
// shared state, so it implements harness.RetryObserver and locks.
type retryBudget struct {
	mu       sync.Mutex
	requests int
	retries  int
}

func (b *retryBudget) Key() string        { return "retry-budget/10%/full-jitter/base=100/cap=5000" }
func (b *retryBudget) Mode() harness.Mode { return harness.ModeNormal }
func (b *retryBudget) Budget() int        { return 5 }
func (b *retryBudget) CapMs() float64     { return 5000 }

func (b *retryBudget) Observe(o harness.AttemptOutcome) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.requests++
}

func (b *retryBudget) Decide(c harness.RetryContext) harness.RetryDecision {
	b.mu.Lock()
	spent := b.retries >= 1+b.requests/10
	if !spent {
		b.retries++
	}
	b.mu.Unlock()
	if spent {
		return harness.GiveUp()
	}
	window := math.Min(5000, 100*math.Pow(2, float64(c.Retry-1)))
	return harness.Wait(math.Round(c.Random() * window))
}

// A Go user plugs any RetryStrategy into a herd and compares it with a published one on the same
// seed: 200 agents, 3 requests each, one provider with limited capacity.
func ExampleRun() {
	run := func(strategy func() harness.RetryStrategy) herd.Result {
		return herd.Run(herd.Options{
			Agents: 200, RequestsPerAgent: 3, StartSpreadMs: 1000, Seed: 1,
			Provider: herd.DefaultCapacityModel(),
			Strategy: strategy,
		})
	}
	mine := run(func() harness.RetryStrategy { return &retryBudget{} })
	theirs := run(func() harness.RetryStrategy { s, _ := zoo.New("full-jitter", nil); return s })
	fmt.Println("properties kept:", len(mine.Violations) == 0 && len(theirs.Violations) == 0)
	fmt.Println("every turn settled:", mine.Completed+mine.GaveUp == 600 && theirs.Completed+theirs.GaveUp == 600)
	fmt.Println("the budget amplifies less:", mine.Amplification < theirs.Amplification)
	fmt.Println("the budget's retries are at most 10% of requests, plus one:", mine.Retries <= 1+mine.Attempts/10)
	// Output:
	// properties kept: true
	// every turn settled: true
	// the budget amplifies less: true
	// the budget's retries are at most 10% of requests, plus one: true
}
