package zoo

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/turnsim/turnsim/harness"
)

// ParamsError says which parameter of which strategy is wrong, and why.
type ParamsError struct {
	Strategy string
	Field    string
	Reason   string
}

func (e *ParamsError) Error() string {
	if e.Field == "" {
		return "zoo: " + e.Strategy + ": " + e.Reason
	}
	return "zoo: " + e.Strategy + ": " + e.Field + ": " + e.Reason
}

// checkDelay refuses a delay that is NaN, infinite, negative or above the harness's timer
// ceiling.
func checkDelay(strategy, field string, ms float64) error {
	switch {
	case math.IsNaN(ms):
		return &ParamsError{strategy, field, "is NaN"}
	case math.IsInf(ms, 0):
		return &ParamsError{strategy, field, "is infinite"}
	case ms < 0:
		return &ParamsError{strategy, field, fmt.Sprintf("%g is negative", ms)}
	case ms > harness.TimerCeilingMs:
		return &ParamsError{strategy, field, fmt.Sprintf("%g is above the timer ceiling %g", ms, harness.TimerCeilingMs)}
	}
	return nil
}

// checkPositive refuses a number that is NaN, infinite, zero or negative.
func checkPositive(strategy, field string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return &ParamsError{strategy, field, fmt.Sprintf("%g is not a positive finite number", v)}
	}
	return nil
}

// checkCap refuses a cap below the delay it caps.
func checkCap(strategy, capField string, capMs float64, baseField string, baseMs float64) error {
	if err := checkDelay(strategy, capField, capMs); err != nil {
		return err
	}
	if capMs < baseMs {
		return &ParamsError{strategy, capField, fmt.Sprintf("%g is below %s %g", capMs, baseField, baseMs)}
	}
	return nil
}

// checkBudget refuses a normal-mode budget below one retry, and a budget in always mode, which
// retries without limit.
func checkBudget(strategy string, maxRetries int, always bool) error {
	switch {
	case always && maxRetries != 0:
		return &ParamsError{strategy, "maxRetries", "always mode retries until success; leave maxRetries unset"}
	case !always && maxRetries < 1:
		return &ParamsError{strategy, "maxRetries", fmt.Sprintf("%d is below 1: normal mode would never retry", maxRetries)}
	}
	return nil
}

// modeOf is always when always is set, normal otherwise.
func modeOf(always bool) harness.Mode {
	if always {
		return harness.ModeAlways
	}
	return harness.ModeNormal
}

// budgetKey spells out the mode's part of a key: "/retries=N" in normal mode, "/always".
func budgetKey(maxRetries int, always bool) string {
	if always {
		return "/always"
	}
	return "/retries=" + strconv.Itoa(maxRetries)
}

// num formats a parameter for a key, shortest exact form.
func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// givesUpOn reports whether a normal-mode strategy hands failure down the waterfall at once
// because its code is not transient. Always mode retries every failure, as the seed's does.
func givesUpOn(always bool, codes []string, f harness.Failure) bool {
	return !always && !slices.Contains(codes, f.Code)
}

// wholeMs rounds a delay to whole milliseconds and caps it, so rounding never lifts it above
// the cap and the log's millisecond times stay exact.
func wholeMs(ms, capMs float64) float64 {
	return math.Max(0, math.Min(math.Round(ms), capMs))
}

// exponentialMs is min(cap, base·2^(n-1)) for the n-th retry (n < 1 is treated as 1).
// math.Ldexp keeps base·2^e exact and turns overflow into +Inf, which min caps.
func exponentialMs(baseMs, capMs float64, n int) float64 {
	e := min(max(n-1, 0), 1024)
	return math.Min(math.Ldexp(baseMs, e), capMs)
}
