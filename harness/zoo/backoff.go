package zoo

import (
	"fmt"
	"math"

	"github.com/turnsim/turnsim/harness"
)

// Brooker's family, from Marc Brooker, "Exponential Backoff And Jitter", AWS Architecture Blog,
// March 2015, and the simulator published with it (aws-samples/aws-arch-backoff-simulator): the
// n-th retry (n from 1) of a chain waits
//
//	none                 0
//	constant             delayMs
//	exponential          min(cap, base·2^(n-1))
//	full-jitter          random(0, min(cap, base·2^(n-1)))
//	equal-jitter         t/2 + random(0, t/2), t = min(cap, base·2^(n-1))
//	decorrelated-jitter  min(cap, random(base, prev·3)), prev = the chain's previous delay, or base
//
// The published parameters are the simulator's: base 5 ms, cap 2 s. (Its exponent counts from 1,
// so its first backoff is 2·base; the formula above, as the issue and most libraries write it,
// starts at base.) Brooker's clients retry until they succeed: set Always for that. Normal mode
// (the default, with a budget of DefaultMaxRetries) gives up at once on a failure that is not
// transient (harness.DefaultRetryableCodes). A provider's Retry-After is not consulted: the
// formula alone decides, as published.

// DefaultMaxRetries is the family's normal-mode budget: ten retries, enough for capped
// exponential backoff to reach its cap with the published parameters (5 ms·2^9 > 2 s).
const DefaultMaxRetries = 10

// Published parameters of Brooker's simulator.
const (
	BrookerBaseMs = 5
	BrookerCapMs  = 2000
)

// BackoffParams parameterise exponential, full-jitter, equal-jitter and decorrelated-jitter.
type BackoffParams struct {
	BaseMs float64 `json:"baseMs"`
	CapMs  float64 `json:"capMs"`
	// MaxRetries is the normal-mode budget; leave it 0 with Always.
	MaxRetries int `json:"maxRetries,omitempty"`
	// Always retries every failure until success, as Brooker's clients do.
	Always bool `json:"always,omitempty"`
}

// DefaultBackoffParams are the published parameters in normal mode.
func DefaultBackoffParams() BackoffParams {
	return BackoffParams{BaseMs: BrookerBaseMs, CapMs: BrookerCapMs, MaxRetries: DefaultMaxRetries}
}

// Validate refuses a negative, NaN or infinite delay, a cap below the base, and a budget that
// does not fit the mode, naming the field. name is the strategy's, for the message.
func (p BackoffParams) Validate(name string) error {
	if err := checkDelay(name, "baseMs", p.BaseMs); err != nil {
		return err
	}
	if err := checkCap(name, "capMs", p.CapMs, "baseMs", p.BaseMs); err != nil {
		return err
	}
	return checkBudget(name, p.MaxRetries, p.Always)
}

// Formula names the delay formula of a Backoff.
type Formula string

// The formulas of Brooker's family that BackoffParams parameterise.
const (
	FormulaExponential  Formula = "exponential"
	FormulaFullJitter   Formula = "full-jitter"
	FormulaEqualJitter  Formula = "equal-jitter"
	FormulaDecorrelated Formula = "decorrelated-jitter"
)

// Backoff is one of Brooker's capped exponential strategies: plain, full, equal or decorrelated
// jitter. It keeps no state: decorrelated jitter reads its previous delay from the chain (the
// log), so a restart cannot lose it.
type Backoff struct {
	formula Formula
	p       BackoffParams
}

var _ harness.RetryStrategy = Backoff{}

// NewBackoff validates p and returns the strategy with the given formula.
func NewBackoff(formula Formula, p BackoffParams) (Backoff, error) {
	switch formula {
	case FormulaExponential, FormulaFullJitter, FormulaEqualJitter, FormulaDecorrelated:
	default:
		return Backoff{}, fmt.Errorf("zoo: unknown backoff formula %q", string(formula))
	}
	if err := p.Validate(string(formula)); err != nil {
		return Backoff{}, err
	}
	return Backoff{formula: formula, p: p}, nil
}

// Params returns the strategy's parameters.
func (b Backoff) Params() BackoffParams { return b.p }

// Key spells out the formula and every parameter: "full-jitter/base=5/cap=2000/retries=10".
func (b Backoff) Key() string {
	return fmt.Sprintf("%s/base=%s/cap=%s%s", b.formula, num(b.p.BaseMs), num(b.p.CapMs), budgetKey(b.p.MaxRetries, b.p.Always))
}

// Mode is always when the params say so, normal otherwise.
func (b Backoff) Mode() harness.Mode { return modeOf(b.p.Always) }

// Budget is maxRetries (normal mode).
func (b Backoff) Budget() int { return b.p.MaxRetries }

// CapMs is the cap: no formula of the family waits longer.
func (b Backoff) CapMs() float64 { return b.p.CapMs }

// Decide applies the formula; exponential draws nothing, the jittered ones one number.
func (b Backoff) Decide(c harness.RetryContext) harness.RetryDecision {
	if givesUpOn(b.p.Always, harness.DefaultRetryableCodes, c.Failure) {
		return harness.GiveUp()
	}
	return harness.Wait(b.DelayMs(c.Retry, c.EarlierDelaysMs, c.Random))
}

// DelayMs is the formula's delay for the n-th retry of a chain that already waited earlier,
// rounded to whole milliseconds and capped.
func (b Backoff) DelayMs(n int, earlier []float64, random func() float64) float64 {
	base, capMs := b.p.BaseMs, b.p.CapMs
	switch b.formula {
	case FormulaExponential:
		return wholeMs(exponentialMs(base, capMs, n), capMs)
	case FormulaFullJitter:
		return wholeMs(random()*exponentialMs(base, capMs, n), capMs)
	case FormulaEqualJitter:
		t := exponentialMs(base, capMs, n)
		return wholeMs(t/2+random()*t/2, capMs)
	case FormulaDecorrelated:
		prev := base
		if len(earlier) > 0 {
			prev = earlier[len(earlier)-1]
		}
		prev = math.Min(prev, capMs) // it is, in the strategy's own chains; this keeps prev·3 finite
		high := math.Max(base, prev*3)
		return wholeMs(base+random()*(high-base), capMs)
	}
	panic(fmt.Sprintf("zoo: invariant violated: unknown formula %q", string(b.formula)))
}

// NoneParams parameterise none: no delay at all.
type NoneParams struct {
	MaxRetries int  `json:"maxRetries,omitempty"`
	Always     bool `json:"always,omitempty"`
}

// DefaultNoneParams is none in normal mode with the family's budget.
func DefaultNoneParams() NoneParams { return NoneParams{MaxRetries: DefaultMaxRetries} }

// Validate refuses a budget that does not fit the mode.
func (p NoneParams) Validate() error { return checkBudget("none", p.MaxRetries, p.Always) }

// None retries at once: Brooker's "no backoff" baseline, the worst case for contention.
type None struct{ p NoneParams }

var _ harness.RetryStrategy = None{}

// NewNone validates p and returns the strategy.
func NewNone(p NoneParams) (None, error) {
	if err := p.Validate(); err != nil {
		return None{}, err
	}
	return None{p: p}, nil
}

// Key is "none/retries=N" or "none/always".
func (s None) Key() string { return "none" + budgetKey(s.p.MaxRetries, s.p.Always) }

// Mode is always when the params say so, normal otherwise.
func (s None) Mode() harness.Mode { return modeOf(s.p.Always) }

// Budget is maxRetries (normal mode).
func (s None) Budget() int { return s.p.MaxRetries }

// CapMs is 0: it never waits.
func (s None) CapMs() float64 { return 0 }

// Decide retries at once; it draws nothing.
func (s None) Decide(c harness.RetryContext) harness.RetryDecision {
	if givesUpOn(s.p.Always, harness.DefaultRetryableCodes, c.Failure) {
		return harness.GiveUp()
	}
	return harness.Wait(0)
}

// ConstantParams parameterise constant: the same delay before every retry.
type ConstantParams struct {
	DelayMs    float64 `json:"delayMs"`
	MaxRetries int     `json:"maxRetries,omitempty"`
	Always     bool    `json:"always,omitempty"`
}

// DefaultConstantParams waits Brooker's base, 5 ms, in normal mode with the family's budget.
func DefaultConstantParams() ConstantParams {
	return ConstantParams{DelayMs: BrookerBaseMs, MaxRetries: DefaultMaxRetries}
}

// Validate refuses a negative, NaN or infinite delay and a budget that does not fit the mode.
func (p ConstantParams) Validate() error {
	if err := checkDelay("constant", "delayMs", p.DelayMs); err != nil {
		return err
	}
	return checkBudget("constant", p.MaxRetries, p.Always)
}

// Constant waits a fixed delay: no backoff, no jitter.
type Constant struct{ p ConstantParams }

var _ harness.RetryStrategy = Constant{}

// NewConstant validates p and returns the strategy.
func NewConstant(p ConstantParams) (Constant, error) {
	if err := p.Validate(); err != nil {
		return Constant{}, err
	}
	return Constant{p: p}, nil
}

// Key is "constant/delay=D/retries=N" or ".../always".
func (s Constant) Key() string {
	return "constant/delay=" + num(s.p.DelayMs) + budgetKey(s.p.MaxRetries, s.p.Always)
}

// Mode is always when the params say so, normal otherwise.
func (s Constant) Mode() harness.Mode { return modeOf(s.p.Always) }

// Budget is maxRetries (normal mode).
func (s Constant) Budget() int { return s.p.MaxRetries }

// CapMs is the delay, rounded up to whole milliseconds as the delay is rounded.
func (s Constant) CapMs() float64 { return math.Round(s.p.DelayMs) }

// Decide waits the delay; it draws nothing.
func (s Constant) Decide(c harness.RetryContext) harness.RetryDecision {
	if givesUpOn(s.p.Always, harness.DefaultRetryableCodes, c.Failure) {
		return harness.GiveUp()
	}
	return harness.Wait(math.Round(s.p.DelayMs))
}
