package harness

import (
	"math"
	"strconv"
)

// What a retry strategy states about itself, beyond its cap and budget: how it treats a
// provider's Retry-After, and where its own delays fall. A simulator judges a run by these
// statements, not by the strategy's code, so a strategy that breaks its word is a violation
// whatever its formula. A strategy that says nothing about Retry-After is held to the strictest
// statement, the seed's.

// RetryAfterWait is how a strategy waits a provider's Retry-After.
type RetryAfterWait string

// The ways to wait a Retry-After.
const (
	// RetryAfterExact waits the hint exactly as given.
	RetryAfterExact RetryAfterWait = "exact"
	// RetryAfterAtLeast never waits less than the hint (it may round it up, or add to it).
	RetryAfterAtLeast RetryAfterWait = "at-least"
	// RetryAfterIgnored does not consult the hint: the strategy's own delay applies.
	RetryAfterIgnored RetryAfterWait = "ignored"
)

// RetryAfterUse is how a strategy treats a usable provider Retry-After (positive and finite):
// how it waits a hint up to LimitMs, and what a longer one gets.
type RetryAfterUse struct {
	// Within is how a hint at or below LimitMs is waited. With RetryAfterIgnored the other
	// fields say nothing: no hint is ever consulted.
	Within RetryAfterWait
	// LimitMs is the longest hint waited as Within says.
	LimitMs float64
	// GivesUpBeyond says what a hint above LimitMs gets: normal mode gives up on it (the
	// provider says "not now" for longer than the strategy may wait; always mode waits a delay
	// of its own), or, when false, the hint is ignored and the strategy's own delay applies in
	// either mode.
	GivesUpBeyond bool
}

// String names the statement as a report shows it: "exact-within-cap 10000 ms", "at-least up to
// 60000 ms, own delay beyond", "ignored".
func (u RetryAfterUse) String() string {
	if u.Within == RetryAfterIgnored {
		return string(RetryAfterIgnored)
	}
	beyond := "normal mode gives up beyond"
	if !u.GivesUpBeyond {
		beyond = "own delay beyond"
	}
	return string(u.Within) + " up to " + formatMs(u.LimitMs) + " ms, " + beyond
}

// RetryAfterStater is implemented by a strategy that states how it treats Retry-After.
type RetryAfterStater interface {
	RetryAfter() RetryAfterUse
}

// RetryAfterOf is what s states about Retry-After, or, when it states nothing, the strictest:
// a hint at or below its cap is waited exactly, and normal mode gives up on a longer one.
func RetryAfterOf(s RetryStrategy) RetryAfterUse {
	if stater, ok := s.(RetryAfterStater); ok {
		return stater.RetryAfter()
	}
	return RetryAfterUse{Within: RetryAfterExact, LimitMs: s.CapMs(), GivesUpBeyond: true}
}

// RetryAfter is the seed's rule: a hint at or below maxDelay is used exactly, with no jitter;
// normal mode gives up on a longer one, always mode backs off locally.
func (s SeedStrategy) RetryAfter() RetryAfterUse {
	return RetryAfterUse{Within: RetryAfterExact, LimitMs: s.Policy.MaxDelayMs, GivesUpBeyond: true}
}

// DelayWindow is where a strategy's own delay for one retry (not a provider's Retry-After)
// falls: drawn from [LowMs, HighMs] by the last number the strategy draws for the decision,
// u in [0, 1), as LowMs + u·(HighMs − LowMs), or HighMs − u·(HighMs − LowMs) when Falling, then
// rounded to whole milliseconds (and never above the strategy's cap). A window with LowMs ==
// HighMs is a delay that draws nothing.
type DelayWindow struct {
	LowMs, HighMs float64
	Falling       bool
}

// DelayWindowStater is implemented by a strategy that states the window of its own delay for
// the retry-th retry of a chain that already waited earlierDelaysMs (oldest first, as
// RetryContext gives them), so that each delay can be checked against the number it drew.
type DelayWindowStater interface {
	DelayWindow(retry int, earlierDelaysMs []float64) DelayWindow
}

// DelayWindow is the seed's local delay formula as a window: for the n-th retry, e = min(n-1,
// 1024), exp = min(initial·2^e, max), and the delay is drawn from [exp·(1−r), exp·(1+r)].
func (s SeedStrategy) DelayWindow(retry int, _ []float64) DelayWindow {
	p := s.Policy
	exponential := math.Min(math.Ldexp(p.InitialDelayMs, min(max(retry-1, 0), 1024)), p.MaxDelayMs)
	return DelayWindow{LowMs: exponential * (1 - p.JitterRatio), HighMs: exponential * (1 + p.JitterRatio)}
}

// formatMs writes milliseconds in their shortest exact form.
func formatMs(ms float64) string { return strconv.FormatFloat(ms, 'g', -1, 64) }
