package failmap

import (
	"fmt"
	"net/http"
	"time"

	"github.com/turnsim/turnsim/harness"
)

// CodeForStatus maps an HTTP status to a failure code: 429 is RATE_LIMIT; 500, 502, 503, 504 and
// 529 (Anthropic's "overloaded") are SERVER; 408 is TIMEOUT. Every other status (401, 403, 404,
// 400, 501 …) is UNKNOWN, which the default policy does not retry: retrying a bad key or a bad
// request only multiplies it. The caller upgrades a 400 to CONTEXT_WINDOW_EXCEEDED when the
// provider's body says so.
func CodeForStatus(status int) string {
	switch status {
	case http.StatusTooManyRequests:
		return harness.CodeRateLimit
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout, 529:
		return harness.CodeServer
	case http.StatusRequestTimeout:
		return harness.CodeTimeout
	}
	return harness.CodeUnknown
}

// FromResponse builds the Failure of an HTTP error response: its code (CONTEXT_WINDOW_EXCEEDED
// when contextWindow says the body named it), the status kept, the retry hint read against now,
// and the request id header (either provider's spelling).
func FromResponse(status int, message string, h http.Header, now time.Time, contextWindow bool) harness.Failure {
	code := CodeForStatus(status)
	if contextWindow {
		code = harness.CodeContextWindowExceeded
	}
	if message == "" {
		message = fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
	}
	return harness.Failure{
		Code:                 code,
		Message:              Clip(message),
		Status:               status,
		ProviderRetryAfterMs: RetryAfterMs(h, now),
		RequestID:            RequestID(h),
	}.Normalize()
}

// RequestID is the provider's request id: OpenAI's x-request-id or Anthropic's request-id.
func RequestID(h http.Header) string {
	if h == nil {
		return ""
	}
	if id := h.Get("X-Request-Id"); id != "" {
		return Clip(id)
	}
	return Clip(h.Get("Request-Id"))
}

// maxMessage bounds a failure's message: an error body can be a whole HTML page, and the
// message is written into every llm/retry event of the session log.
const maxMessage = 500

// Clip shortens s to at most maxMessage bytes (on a rune boundary), marking the cut.
func Clip(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	cut := maxMessage
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
