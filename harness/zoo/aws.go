package zoo

import (
	"fmt"
	"sync"

	"github.com/turnsim/turnsim/harness"
)

// The AWS SDKs' "standard" retry mode ("Retry behavior", AWS SDKs and Tools Reference Guide; the
// constants of aws-sdk-js-v3's middleware-retry and botocore's retries/standard.py):
// max_attempts 3 (a budget of 2 retries), and a retry quota shared by the client: it starts at
// 500 tokens, each retry takes 5 (10 after a TIMEOUT), and when the quota cannot pay for a retry
// the failure is not retried. Backoff: the n-th retry waits
//
//	random(0, 1) · min(1 s·2^(n-1), 20 s)
//
// the guide's truncated binary exponential backoff with full jitter, base 1 s, MAX_BACKOFF 20 s.
//
// Refill, as the issue asks: every successful attempt adds 1 token, up to the initial 500. (The
// SDKs refine this: a success without a retry adds NO_RETRY_INCREMENT, 1; a success after a
// retry refunds that retry's cost instead.) A provider's Retry-After is not consulted.

// AWSParams parameterise aws-quota.
type AWSParams struct {
	MaxAttempts      int     `json:"maxAttempts"`
	BaseMs           float64 `json:"baseMs"`
	MaxBackoffMs     float64 `json:"maxBackoffMs"`
	QuotaTokens      int     `json:"quotaTokens"`
	RetryCost        int     `json:"retryCost"`
	TimeoutRetryCost int     `json:"timeoutRetryCost"`
	SuccessIncrement int     `json:"successIncrement"`
}

// DefaultAWSParams are standard mode's constants.
func DefaultAWSParams() AWSParams {
	return AWSParams{MaxAttempts: 3, BaseMs: 1000, MaxBackoffMs: 20000, QuotaTokens: 500, RetryCost: 5, TimeoutRetryCost: 10, SuccessIncrement: 1}
}

// Validate refuses a budget of zero retries, a bad delay, an empty quota and negative costs,
// naming the field.
func (p AWSParams) Validate() error {
	const name = "aws-quota"
	if p.MaxAttempts < 2 {
		return &ParamsError{name, "maxAttempts", fmt.Sprintf("%d is below 2: a budget of %d retries", p.MaxAttempts, max(p.MaxAttempts-1, 0))}
	}
	if err := checkDelay(name, "baseMs", p.BaseMs); err != nil {
		return err
	}
	if err := checkCap(name, "maxBackoffMs", p.MaxBackoffMs, "baseMs", p.BaseMs); err != nil {
		return err
	}
	if p.QuotaTokens < 1 {
		return &ParamsError{name, "quotaTokens", fmt.Sprintf("%d is below 1: no retry could ever be paid for", p.QuotaTokens)}
	}
	for _, f := range []struct {
		field string
		v     int
	}{{"retryCost", p.RetryCost}, {"timeoutRetryCost", p.TimeoutRetryCost}, {"successIncrement", p.SuccessIncrement}} {
		if f.v < 0 {
			return &ParamsError{name, f.field, fmt.Sprintf("%d is negative", f.v)}
		}
	}
	return nil
}

// AWSQuota is standard retry mode with its retry quota. It is safe for concurrent use.
type AWSQuota struct {
	p AWSParams

	mu     sync.Mutex
	tokens int
}

var (
	_ harness.RetryStrategy = (*AWSQuota)(nil)
	_ harness.RetryObserver = (*AWSQuota)(nil)
)

// NewAWSQuota validates p and returns the strategy with a full quota.
func NewAWSQuota(p AWSParams) (*AWSQuota, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &AWSQuota{p: p, tokens: p.QuotaTokens}, nil
}

// Key spells out every parameter.
func (a *AWSQuota) Key() string {
	return fmt.Sprintf("aws-quota/attempts=%d/base=%s/max=%s/quota=%d/cost=%d/timeout-cost=%d/increment=%d", a.p.MaxAttempts,
		num(a.p.BaseMs), num(a.p.MaxBackoffMs), a.p.QuotaTokens, a.p.RetryCost, a.p.TimeoutRetryCost, a.p.SuccessIncrement)
}

// Mode is normal: standard mode always has max_attempts.
func (a *AWSQuota) Mode() harness.Mode { return harness.ModeNormal }

// Budget is maxAttempts − 1 retries.
func (a *AWSQuota) Budget() int { return a.p.MaxAttempts - 1 }

// CapMs is MAX_BACKOFF.
func (a *AWSQuota) CapMs() float64 { return a.p.MaxBackoffMs }

// Tokens is the quota now.
func (a *AWSQuota) Tokens() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.tokens
}

// Observe adds successIncrement for a successful attempt, up to the initial quota.
func (a *AWSQuota) Observe(o harness.AttemptOutcome) {
	if !o.Success {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tokens = min(a.tokens+a.p.SuccessIncrement, a.p.QuotaTokens)
}

// Decide gives up on a failure that is not transient and when the quota cannot pay for the
// retry; otherwise it takes the cost and draws the backoff (one draw).
func (a *AWSQuota) Decide(c harness.RetryContext) harness.RetryDecision {
	if givesUpOn(false, harness.DefaultRetryableCodes, c.Failure) {
		return harness.GiveUp()
	}
	cost := a.p.RetryCost
	if c.Failure.Code == harness.CodeTimeout {
		cost = a.p.TimeoutRetryCost
	}
	a.mu.Lock()
	paid := a.tokens >= cost
	if paid {
		a.tokens -= cost
	}
	a.mu.Unlock()
	if !paid {
		return harness.GiveUp()
	}
	window := exponentialMs(a.p.BaseMs, a.p.MaxBackoffMs, c.Retry)
	return harness.Wait(wholeMs(c.Random()*window, a.p.MaxBackoffMs))
}
