package zoo

import (
	"fmt"
	"math"
	"sync"

	"github.com/turnsim/turnsim/harness"
)

// Client-side adaptive throttling, from Google's "Site Reliability Engineering" (O'Reilly,
// 2016), chapter 21, "Handling Overload": each client counts, over the last two minutes, its
// requests (attempts sent) and its accepts (attempts the backend served), and rejects a request
// locally with probability
//
//	max(0, (requests − K·accepts) / (requests + 1))
//
// with K = 2. Here only retries can be rejected: a retry is dropped (the failure goes down the
// waterfall) with that probability; otherwise it waits full-jitter backoff,
// random(0, min(cap, base·2^(n-1))). The book gives no backoff parameters; the defaults are the
// seed's time scale (500 ms, capped at 10 s) and its chapter 22 advice to allow few retries per
// request (3). An accept is a successful attempt. The window slides on the attempts' own times
// (AttemptOutcome.AtMs, virtual time in the simulator).

// SREParams parameterise sre-adaptive.
type SREParams struct {
	K          float64 `json:"k"`
	WindowMs   float64 `json:"windowMs"`
	BaseMs     float64 `json:"baseMs"`
	CapMs      float64 `json:"capMs"`
	MaxRetries int     `json:"maxRetries,omitempty"`
	Always     bool    `json:"always,omitempty"`
}

// DefaultSREParams are K = 2 over two minutes, with the backoff described above.
func DefaultSREParams() SREParams {
	return SREParams{K: 2, WindowMs: 120_000, BaseMs: 500, CapMs: 10_000, MaxRetries: 3}
}

// Validate refuses a K or window that is not positive and finite, a bad delay and a budget that
// does not fit the mode, naming the field.
func (p SREParams) Validate() error {
	const name = "sre-adaptive"
	if err := checkPositive(name, "k", p.K); err != nil {
		return err
	}
	if err := checkPositive(name, "windowMs", p.WindowMs); err != nil {
		return err
	}
	if err := checkDelay(name, "baseMs", p.BaseMs); err != nil {
		return err
	}
	if err := checkCap(name, "capMs", p.CapMs, "baseMs", p.BaseMs); err != nil {
		return err
	}
	return checkBudget(name, p.MaxRetries, p.Always)
}

// SREAdaptive is adaptive client-side throttling in front of full-jitter backoff. It is safe for
// concurrent use.
type SREAdaptive struct {
	p SREParams

	mu       sync.Mutex
	attempts []sreAttempt // within the window, oldest first, from head
	head     int
	accepts  int   // among attempts[head:]
	latestMs int64 // the latest attempt's time
}

type sreAttempt struct {
	atMs     int64
	accepted bool
}

var (
	_ harness.RetryStrategy = (*SREAdaptive)(nil)
	_ harness.RetryObserver = (*SREAdaptive)(nil)
)

// NewSREAdaptive validates p and returns the strategy with empty counts.
func NewSREAdaptive(p SREParams) (*SREAdaptive, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &SREAdaptive{p: p}, nil
}

// Key spells out every parameter.
func (s *SREAdaptive) Key() string {
	return fmt.Sprintf("sre-adaptive/k=%s/window=%s/base=%s/cap=%s%s", num(s.p.K), num(s.p.WindowMs), num(s.p.BaseMs),
		num(s.p.CapMs), budgetKey(s.p.MaxRetries, s.p.Always))
}

// Mode is always when the params say so, normal otherwise.
func (s *SREAdaptive) Mode() harness.Mode { return modeOf(s.p.Always) }

// Budget is maxRetries (normal mode).
func (s *SREAdaptive) Budget() int { return s.p.MaxRetries }

// CapMs is the backoff's cap.
func (s *SREAdaptive) CapMs() float64 { return s.p.CapMs }

// Observe counts an attempt, and an accept if it succeeded.
func (s *SREAdaptive) Observe(o harness.AttemptOutcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempts = append(s.attempts, sreAttempt{atMs: o.AtMs, accepted: o.Success})
	if o.Success {
		s.accepts++
	}
	s.latestMs = max(s.latestMs, o.AtMs)
	s.slideLocked()
}

// slideLocked forgets the attempts older than the window.
func (s *SREAdaptive) slideLocked() {
	for s.head < len(s.attempts) && float64(s.latestMs-s.attempts[s.head].atMs) >= s.p.WindowMs {
		if s.attempts[s.head].accepted {
			s.accepts--
		}
		s.head++
	}
	if s.head >= 1024 && 2*s.head >= len(s.attempts) { // slide the live ones down, so memory stays bounded
		n := copy(s.attempts, s.attempts[s.head:])
		s.attempts, s.head = s.attempts[:n], 0
	}
}

// Counts returns the requests and accepts within the window.
func (s *SREAdaptive) Counts() (requests, accepts int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.attempts) - s.head, s.accepts
}

// RejectProbability is max(0, (requests − K·accepts) / (requests + 1)) now.
func (s *SREAdaptive) RejectProbability() float64 {
	requests, accepts := s.Counts()
	return rejectProbability(s.p.K, requests, accepts)
}

func rejectProbability(k float64, requests, accepts int) float64 {
	return math.Max(0, (float64(requests)-k*float64(accepts))/float64(requests+1))
}

// Decide gives up on a failure that is not transient; drops the retry with the rejection
// probability (one draw, only when it is above 0); otherwise draws full-jitter backoff (one
// draw).
func (s *SREAdaptive) Decide(c harness.RetryContext) harness.RetryDecision {
	if givesUpOn(s.p.Always, harness.DefaultRetryableCodes, c.Failure) {
		return harness.GiveUp()
	}
	if p := s.RejectProbability(); p > 0 && c.Random() < p {
		return harness.GiveUp()
	}
	return harness.Wait(wholeMs(c.Random()*exponentialMs(s.p.BaseMs, s.p.CapMs, c.Retry), s.p.CapMs))
}
