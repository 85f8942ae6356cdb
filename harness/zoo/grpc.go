package zoo

import (
	"fmt"
	"math"
	"sync"

	"github.com/turnsim/turnsim/harness"
)

// gRPC retries with retry throttling, as gRFC A6 ("gRPC Retry Design") specifies them.
//
// Backoff: the n-th retry waits random(0, min(initialBackoff·multiplier^(n-1), maxBackoff)),
// with the A6 example's initialBackoff 0.1 s, backoffMultiplier 2, maxBackoff 1 s, and
// maxAttempts 5 (the most A6 allows; a budget of 4 retries).
//
// Throttling: a token count, per channel, starts at maxTokens (10); every failed attempt takes 1
// token, every successful one gives back tokenRatio (0.1), and the count stays within
// [0, maxTokens]. While it is at or below maxTokens/2, no retry is made: the failure goes down
// the waterfall. As A6 allows three decimal places, tokens are kept in thousandths, so the
// arithmetic is exact. One GRPCThrottle stands for one channel: share it among the agents that
// would share the channel.
//
// A provider's Retry-After is not gRPC's server pushback (grpc-retry-pushback-ms); it is not
// consulted, so every delay stays within maxBackoff.

// GRPCParams parameterise grpc-throttle; the field names are A6's service-config names.
type GRPCParams struct {
	MaxAttempts       int     `json:"maxAttempts"`
	InitialBackoffMs  float64 `json:"initialBackoffMs"`
	MaxBackoffMs      float64 `json:"maxBackoffMs"`
	BackoffMultiplier float64 `json:"backoffMultiplier"`
	MaxTokens         float64 `json:"maxTokens"`
	TokenRatio        float64 `json:"tokenRatio"`
}

// DefaultGRPCParams are A6's example values.
func DefaultGRPCParams() GRPCParams {
	return GRPCParams{MaxAttempts: 5, InitialBackoffMs: 100, MaxBackoffMs: 1000, BackoffMultiplier: 2, MaxTokens: 10, TokenRatio: 0.1}
}

// Validate applies A6's rules (maxAttempts above 1; backoffs and multiplier above 0; maxTokens in
// (0, 1000]; tokenRatio above 0, both to three decimal places), naming the field.
func (p GRPCParams) Validate() error {
	const name = "grpc-throttle"
	if p.MaxAttempts < 2 {
		return &ParamsError{name, "maxAttempts", fmt.Sprintf("%d is below 2: a budget of %d retries", p.MaxAttempts, max(p.MaxAttempts-1, 0))}
	}
	if err := checkDelay(name, "initialBackoffMs", p.InitialBackoffMs); err != nil {
		return err
	}
	if err := checkPositive(name, "initialBackoffMs", p.InitialBackoffMs); err != nil {
		return err
	}
	if err := checkCap(name, "maxBackoffMs", p.MaxBackoffMs, "initialBackoffMs", p.InitialBackoffMs); err != nil {
		return err
	}
	if err := checkPositive(name, "backoffMultiplier", p.BackoffMultiplier); err != nil {
		return err
	}
	if err := checkPositive(name, "maxTokens", p.MaxTokens); err != nil {
		return err
	}
	if p.MaxTokens > 1000 {
		return &ParamsError{name, "maxTokens", fmt.Sprintf("%g is above 1000", p.MaxTokens)}
	}
	if err := checkPositive(name, "tokenRatio", p.TokenRatio); err != nil {
		return err
	}
	if milli(p.TokenRatio) < 1 {
		return &ParamsError{name, "tokenRatio", fmt.Sprintf("%g rounds to 0 at three decimal places", p.TokenRatio)}
	}
	if p.TokenRatio > p.MaxTokens {
		return &ParamsError{name, "tokenRatio", fmt.Sprintf("%g is above maxTokens %g", p.TokenRatio, p.MaxTokens)}
	}
	return nil
}

// milli converts to thousandths, A6's precision.
func milli(v float64) int64 { return int64(math.Round(v * 1000)) }

// GRPCThrottle is gRPC's retry policy with retry throttling. It is safe for concurrent use.
type GRPCThrottle struct {
	p GRPCParams

	mu     sync.Mutex
	tokens int64 // thousandths of a token
}

var (
	_ harness.RetryStrategy = (*GRPCThrottle)(nil)
	_ harness.RetryObserver = (*GRPCThrottle)(nil)
)

// NewGRPCThrottle validates p and returns the strategy with a full bucket.
func NewGRPCThrottle(p GRPCParams) (*GRPCThrottle, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &GRPCThrottle{p: p, tokens: milli(p.MaxTokens)}, nil
}

// Key spells out every parameter.
func (g *GRPCThrottle) Key() string {
	return fmt.Sprintf("grpc-throttle/attempts=%d/initial=%s/max=%s/multiplier=%s/tokens=%s/ratio=%s", g.p.MaxAttempts,
		num(g.p.InitialBackoffMs), num(g.p.MaxBackoffMs), num(g.p.BackoffMultiplier), num(g.p.MaxTokens), num(g.p.TokenRatio))
}

// Mode is normal: gRPC always has maxAttempts.
func (g *GRPCThrottle) Mode() harness.Mode { return harness.ModeNormal }

// Budget is maxAttempts − 1 retries.
func (g *GRPCThrottle) Budget() int { return g.p.MaxAttempts - 1 }

// CapMs is maxBackoff.
func (g *GRPCThrottle) CapMs() float64 { return g.p.MaxBackoffMs }

// Tokens is the token count now.
func (g *GRPCThrottle) Tokens() float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return float64(g.tokens) / 1000
}

// Observe takes a token for a failed attempt and gives tokenRatio back for a successful one.
func (g *GRPCThrottle) Observe(o harness.AttemptOutcome) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if o.Success {
		g.tokens = min(g.tokens+milli(g.p.TokenRatio), milli(g.p.MaxTokens))
	} else {
		g.tokens = max(g.tokens-1000, 0)
	}
}

// Decide gives up on a failure that is not transient and while the bucket is at or below half;
// otherwise it draws the backoff (one draw).
func (g *GRPCThrottle) Decide(c harness.RetryContext) harness.RetryDecision {
	if givesUpOn(false, harness.DefaultRetryableCodes, c.Failure) {
		return harness.GiveUp()
	}
	g.mu.Lock()
	throttled := 2*g.tokens <= milli(g.p.MaxTokens)
	g.mu.Unlock()
	if throttled {
		return harness.GiveUp()
	}
	n := float64(min(max(c.Retry-1, 0), 1<<20))
	window := math.Min(g.p.InitialBackoffMs*math.Pow(g.p.BackoffMultiplier, n), g.p.MaxBackoffMs)
	return harness.Wait(wholeMs(c.Random()*window, g.p.MaxBackoffMs))
}
