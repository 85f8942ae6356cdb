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
// request only multiplies it. FromResponse upgrades a 400 or 413 to CONTEXT_WINDOW_EXCEEDED when
// the provider's error says so, and downgrades a 429 that is a spent quota to UNKNOWN.
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

// Response is an HTTP error response as the adapter read it: its status and headers, and its
// error object's type, code and message (each may be empty).
type Response struct {
	Status              int
	Type, Code, Message string
	Header              http.Header
}

// FromResponse builds the Failure of an HTTP error response: its code, the status kept, the retry
// hint read against now, and the request id header (either provider's spelling).
//
// A 400 or 413 whose error names the context window is CONTEXT_WINDOW_EXCEEDED (compaction can
// answer it). A 429 whose error is a spent quota (OpenAI's insufficient_quota) is UNKNOWN with no
// hint: waiting does not refill a quota, so normal mode gives up at once instead of retrying it
// at the provider's pace, and always mode, which retries every failure until the turn is
// cancelled, backs off by its own delays rather than a hint meant for a rate limit.
func FromResponse(r Response, now time.Time) harness.Failure {
	code := CodeForStatus(r.Status)
	hint := RetryAfterMs(r.Header, now)
	switch {
	case (r.Status == http.StatusBadRequest || r.Status == http.StatusRequestEntityTooLarge) && ContextOverflow(r.Type, r.Code, r.Message):
		code = harness.CodeContextWindowExceeded
	case r.Status == http.StatusTooManyRequests && QuotaSpent(r.Type, r.Code):
		code, hint = harness.CodeUnknown, 0
	}
	message := r.Message
	if message == "" {
		message = fmt.Sprintf("HTTP %d %s", r.Status, http.StatusText(r.Status))
	}
	return harness.Failure{
		Code:                 code,
		Message:              Clip(message),
		Status:               r.Status,
		ProviderRetryAfterMs: hint,
		RequestID:            RequestID(r.Header),
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
