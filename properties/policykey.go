package properties

import (
	"math"
	"strconv"
	"strings"

	"github.com/turnsim/turnsim/harness"
)

// A chain's policyKey is part of the log format: when no user named the policy, it spells out the
// fields the chain ran under, so a log checked on its own (CheckLog) still says which delays and
// budget were allowed. It is read here independently of the harness's own parser, so a harness
// that wrote a wrong key would be caught rather than read back by the same mistake:
//
//	MODE/initial=MS/max=MS/jitter=RATIO[/retries=N][/codes=CODE+CODE+…]
//
// retries is present exactly in normal mode; codes only when the list differs from the spec's
// default (which an absent codes part means).

// policyFromKey reads the policy a derived policyKey spells out. It reports false for a key it
// cannot read (a user-given key, say) or one that names an invalid policy.
func policyFromKey(key string) (harness.RetryPolicy, bool) {
	parts := strings.Split(key, "/")
	if len(parts) < 4 {
		return harness.RetryPolicy{}, false
	}
	p := harness.RetryPolicy{Mode: harness.Mode(parts[0])}
	if p.Mode != harness.ModeNormal && p.Mode != harness.ModeAlways {
		return harness.RetryPolicy{}, false
	}
	var ok [3]bool
	p.InitialDelayMs, ok[0] = keyNumber(parts[1], "initial")
	p.MaxDelayMs, ok[1] = keyNumber(parts[2], "max")
	p.JitterRatio, ok[2] = keyNumber(parts[3], "jitter")
	if !ok[0] || !ok[1] || !ok[2] || p.MaxDelayMs < p.InitialDelayMs || p.JitterRatio > 1 {
		return harness.RetryPolicy{}, false
	}
	rest := parts[4:]
	if p.Mode == harness.ModeNormal {
		if len(rest) == 0 {
			return harness.RetryPolicy{}, false
		}
		value, named := strings.CutPrefix(rest[0], "retries=")
		n, err := strconv.Atoi(value)
		if !named || err != nil || n < 1 {
			return harness.RetryPolicy{}, false
		}
		p.MaxRetries, rest = n, rest[1:]
	}
	p.RetryableCodes = append([]string(nil), specRetryableCodes...)
	if len(rest) > 0 {
		value, named := strings.CutPrefix(rest[0], "codes=")
		if !named || value == "" {
			return harness.RetryPolicy{}, false
		}
		p.RetryableCodes, rest = strings.Split(value, "+"), rest[1:]
	}
	if len(rest) > 0 {
		return harness.RetryPolicy{}, false
	}
	return p, true
}

// keyNumber reads "name=value" as a finite, non-negative number.
func keyNumber(part, name string) (float64, bool) {
	value, named := strings.CutPrefix(part, name+"=")
	if !named {
		return 0, false
	}
	v, err := strconv.ParseFloat(value, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, false
	}
	return v, true
}
