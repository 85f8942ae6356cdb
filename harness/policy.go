package harness

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Mode is the llm-retry plugin's mode.
type Mode string

// normal retries only retryable codes, within a budget; always retries every failure without
// limit, after giving the rest of the waterfall the first say.
const (
	ModeNormal Mode = "normal"
	ModeAlways Mode = "always"
)

// TimerCeilingMs is the longest delay the harness will wait in one timer: 2^31-1 ms, the same
// ceiling as JavaScript's setTimeout in the harness this one ports, so logs stay comparable.
const TimerCeilingMs = float64(1<<31 - 1)

// DefaultRetryableCodes are the failure codes normal mode retries: the transient ones.
// CONTEXT_WINDOW_EXCEEDED is absent on purpose: re-sending the same request cannot help.
var DefaultRetryableCodes = []string{CodeEmptyResponse, CodeRateLimit, CodeServer, CodeTimeout, CodeTransport}

// RetryPolicy configures the llm-retry plugin. Delays are in milliseconds, as in the logs.
type RetryPolicy struct {
	Mode           Mode     `json:"mode"`
	InitialDelayMs float64  `json:"initialDelayMs"`
	MaxDelayMs     float64  `json:"maxDelayMs"`
	JitterRatio    float64  `json:"jitterRatio"`
	MaxRetries     int      `json:"maxRetries,omitempty"` // normal mode only; counts retries, not attempts
	RetryableCodes []string `json:"retryableCodes,omitempty"`
	// Key names the policy in retry chains; empty means one derived from the fields, so a changed
	// policy starts a new chain.
	Key string `json:"key,omitempty"`
}

// DefaultRetryPolicy is the seed's default: normal mode, 500 ms initial delay, 10 s cap,
// ±10 % jitter, 2 retries.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{
		Mode:           ModeNormal,
		InitialDelayMs: 500,
		MaxDelayMs:     10000,
		JitterRatio:    0.1,
		MaxRetries:     2,
		RetryableCodes: slices.Clone(DefaultRetryableCodes),
	}
}

// PolicyError says which field of a retry policy is wrong and why.
type PolicyError struct {
	Field  string
	Reason string
}

func (e *PolicyError) Error() string {
	return "harness: retry policy: " + e.Field + ": " + e.Reason
}

// Validate refuses a policy that could produce a negative, infinite or NaN delay, a jitter that
// could make the delay negative, or a normal mode that never retries. The error names the field.
func (p RetryPolicy) Validate() error {
	if p.Mode != ModeNormal && p.Mode != ModeAlways {
		return &PolicyError{"mode", fmt.Sprintf("%q is not normal or always", string(p.Mode))}
	}
	if err := checkDelay("initialDelayMs", p.InitialDelayMs); err != nil {
		return err
	}
	if err := checkDelay("maxDelayMs", p.MaxDelayMs); err != nil {
		return err
	}
	if p.MaxDelayMs < p.InitialDelayMs {
		return &PolicyError{"maxDelayMs", fmt.Sprintf("%g is below initialDelayMs %g", p.MaxDelayMs, p.InitialDelayMs)}
	}
	if math.IsNaN(p.JitterRatio) || p.JitterRatio < 0 || p.JitterRatio > 1 {
		return &PolicyError{"jitterRatio", fmt.Sprintf("%g is outside [0, 1]", p.JitterRatio)}
	}
	switch p.Mode {
	case ModeNormal:
		if p.MaxRetries < 1 {
			return &PolicyError{"maxRetries", fmt.Sprintf("%d is below 1: normal mode would never retry", p.MaxRetries)}
		}
	case ModeAlways:
		if p.MaxRetries != 0 {
			return &PolicyError{"maxRetries", "always mode retries without limit; leave maxRetries at 0"}
		}
	}
	for _, code := range p.RetryableCodes {
		if strings.TrimSpace(code) == "" {
			return &PolicyError{"retryableCodes", "contains an empty code"}
		}
	}
	return nil
}

func checkDelay(field string, ms float64) error {
	switch {
	case math.IsNaN(ms):
		return &PolicyError{field, "is NaN"}
	case math.IsInf(ms, 0):
		return &PolicyError{field, "is infinite"}
	case ms < 0:
		return &PolicyError{field, fmt.Sprintf("%g is negative", ms)}
	case ms > TimerCeilingMs:
		return &PolicyError{field, fmt.Sprintf("%g is above the timer ceiling %g", ms, TimerCeilingMs)}
	}
	return nil
}

// PolicyKey is the name under which this policy's retries chain. A user-given Key wins;
// otherwise the key spells out the fields, so changing any of them starts a new chain.
func (p RetryPolicy) PolicyKey() string {
	if p.Key != "" {
		return p.Key
	}
	// Appended into one buffer, not fmt.Sprintf'd and concatenated: every agent derives its key
	// (harness.New), so this runs once per agent and per restart.
	key := make([]byte, 0, 96)
	key = append(append(key, p.Mode...), "/initial="...)
	key = append(strconv.AppendFloat(key, p.InitialDelayMs, 'g', -1, 64), "/max="...)
	key = append(strconv.AppendFloat(key, p.MaxDelayMs, 'g', -1, 64), "/jitter="...)
	key = strconv.AppendFloat(key, p.JitterRatio, 'g', -1, 64)
	if p.Mode == ModeNormal {
		key = strconv.AppendInt(append(key, "/retries="...), int64(p.MaxRetries), 10)
	}
	if len(p.RetryableCodes) > 0 && !slices.Equal(p.RetryableCodes, DefaultRetryableCodes) {
		key = append(key, "/codes="...)
		for i, code := range p.RetryableCodes {
			if i > 0 {
				key = append(key, '+')
			}
			key = append(key, code...)
		}
	}
	return string(key)
}

// ParsePolicyKey reads back a policy from a key PolicyKey derived from its fields (not a
// user-given Key), so a log alone says which policy each chain ran under.
func ParsePolicyKey(key string) (RetryPolicy, bool) {
	parts := strings.Split(key, "/")
	if len(parts) < 4 {
		return RetryPolicy{}, false
	}
	p := RetryPolicy{Mode: Mode(parts[0]), RetryableCodes: slices.Clone(DefaultRetryableCodes)}
	fields := map[string]*float64{"initial": &p.InitialDelayMs, "max": &p.MaxDelayMs, "jitter": &p.JitterRatio}
	for _, part := range parts[1:] {
		name, value, ok := strings.Cut(part, "=")
		if !ok {
			return RetryPolicy{}, false
		}
		if name == "codes" {
			p.RetryableCodes = strings.Split(value, "+")
			continue
		}
		if name == "retries" {
			n, err := strconv.Atoi(value)
			if err != nil {
				return RetryPolicy{}, false
			}
			p.MaxRetries = n
			continue
		}
		target, known := fields[name]
		if !known {
			return RetryPolicy{}, false
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return RetryPolicy{}, false
		}
		*target = v
	}
	if p.Validate() != nil || p.PolicyKey() != key {
		return RetryPolicy{}, false
	}
	return p, true
}

// retryable reports whether normal mode retries code.
func (p RetryPolicy) retryable(code string) bool {
	codes := p.RetryableCodes
	if len(codes) == 0 {
		codes = DefaultRetryableCodes
	}
	return slices.Contains(codes, code)
}

// LocalDelayMs is the seed's localDelay for the n-th retry (n from 1), rounded to whole
// milliseconds (then capped again) so that virtual timestamps stay exact:
//
//	e = min(n-1, 1024); exp = min(initial * 2^e, max); jitter = 1 - r + 2*r*random; min(exp*jitter, max)
//
// random is a draw in [0, 1). math.Ldexp keeps initial*2^e exact and turns overflow into +Inf,
// which min then caps, so no n overflows or goes negative; n < 1 is treated as 1.
func LocalDelayMs(p RetryPolicy, n int, random float64) float64 {
	e := min(max(n-1, 0), 1024)
	exponential := math.Min(math.Ldexp(p.InitialDelayMs, e), p.MaxDelayMs)
	jitter := 1 - p.JitterRatio + 2*p.JitterRatio*random
	return roundDelayMs(exponential*jitter, p.MaxDelayMs)
}

// DelayWindowMs is the closed range LocalDelayMs can return for the n-th retry: the check the
// simulator applies to every recorded delay.
func DelayWindowMs(p RetryPolicy, n int) (low, high float64) {
	e := min(max(n-1, 0), 1024)
	exponential := math.Min(math.Ldexp(p.InitialDelayMs, e), p.MaxDelayMs)
	low = roundDelayMs(exponential*(1-p.JitterRatio), p.MaxDelayMs)
	high = roundDelayMs(exponential*(1+p.JitterRatio), p.MaxDelayMs)
	return low, high
}

// roundDelayMs rounds to whole milliseconds and then caps, so rounding never lifts a delay
// above a fractional maxDelay.
func roundDelayMs(ms, maxMs float64) float64 {
	return math.Min(math.Round(ms), maxMs)
}
