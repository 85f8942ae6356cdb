package failmap

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryAfterMs reads the provider's retry hint in milliseconds: `retry-after-ms` first (a
// non-negative decimal number, as OpenAI and Anthropic send it), then `Retry-After` as
// delay-seconds or as an HTTP-date in any of RFC 9110's three forms, measured against now (the
// injected clock, never the wall clock, so a simulated or test clock gives exact delays).
// Anything else (negative, fractional seconds, an unknown date form, a date in the past, a
// number too large to be finite) gives 0: no hint. A huge but finite hint is returned as is;
// the retry policy, not the adapter, decides that it is too long to wait.
func RetryAfterMs(h http.Header, now time.Time) float64 {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && !math.IsInf(ms, 0) && !math.IsNaN(ms) {
			return ms
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if allDigits(v) {
		secs, err := strconv.ParseFloat(v, 64) // digits only: never negative, never NaN
		if err != nil || math.IsInf(secs*1000, 0) {
			return 0
		}
		return secs * 1000
	}
	// http.ParseTime accepts exactly RFC 9110's three forms: IMF-fixdate, RFC 850 and asctime.
	at, err := http.ParseTime(v)
	if err != nil {
		return 0
	}
	ms := float64(at.Sub(now)) / float64(time.Millisecond)
	if ms <= 0 {
		return 0
	}
	return ms
}

// allDigits reports whether s is RFC 9110's delay-seconds: 1*DIGIT.
func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
