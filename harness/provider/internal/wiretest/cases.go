// Package wiretest holds the cases both adapters' tests serve over loopback: one table of HTTP
// failures with the code each must map to, one of Retry-After forms with the delay each must
// give, so the two adapters are held to exactly the same mapping.
package wiretest

import (
	"net/http"
	"strings"
	"time"

	"github.com/turnsim/turnsim/harness"
)

// Now is the injected clock's time in every case: HTTP-dates are measured against it.
var Now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// StatusCase is one error response and the failure it must give.
type StatusCase struct {
	Name   string
	Status int
	// OpenAI and Anthropic are the body each provider sends; empty means "use a generic error
	// body of that provider's shape".
	OpenAI, Anthropic string
	Code              string
	// NoHint says the failure carries no Retry-After although the response sent one: a spent
	// quota is no rate limit to wait out.
	NoHint bool
}

// StatusCases covers every row of the mapping table.
var StatusCases = []StatusCase{
	{Name: "429 rate limit", Status: 429, Code: harness.CodeRateLimit},
	{Name: "500", Status: 500, Code: harness.CodeServer},
	{Name: "502", Status: 502, Code: harness.CodeServer},
	{Name: "503", Status: 503, Code: harness.CodeServer},
	{Name: "504", Status: 504, Code: harness.CodeServer},
	{Name: "529 overloaded", Status: 529, Code: harness.CodeServer},
	{Name: "408", Status: 408, Code: harness.CodeTimeout},
	{Name: "401", Status: 401, Code: harness.CodeUnknown},
	{Name: "403", Status: 403, Code: harness.CodeUnknown},
	{Name: "404", Status: 404, Code: harness.CodeUnknown},
	{Name: "400 bad request", Status: 400, Code: harness.CodeUnknown},
	{Name: "501 not retried", Status: 501, Code: harness.CodeUnknown},
	{
		Name: "400 context length (provider code)", Status: 400, Code: harness.CodeContextWindowExceeded,
		OpenAI:    `{"error":{"message":"too many tokens","type":"invalid_request_error","code":"context_length_exceeded"}}`,
		Anthropic: `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`,
	},
	{
		Name: "400 context length (message only)", Status: 400, Code: harness.CodeContextWindowExceeded,
		OpenAI:    `{"error":{"message":"This model's maximum context length is 8192 tokens.","type":"BadRequestError","code":400}}`,
		Anthropic: `{"type":"error","error":{"type":"invalid_request_error","message":"input length and max_tokens exceed context limit: 190000 + 20000 > 200000"}}`,
	},
	{
		Name: "400 request too large for model context", Status: 400, Code: harness.CodeContextWindowExceeded,
		OpenAI:    `{"error":{"message":"request too large for model context","type":"invalid_request_error","code":null}}`,
		Anthropic: `{"type":"error","error":{"type":"invalid_request_error","message":"request too large for model context"}}`,
	},
	{
		Name: "400 context size (llama.cpp's wording and type)", Status: 400, Code: harness.CodeContextWindowExceeded,
		OpenAI:    `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}`,
		Anthropic: `{"type":"error","error":{"type":"invalid_request_error","message":"the request exceeds the available context size, try increasing it"}}`,
	},
	{
		Name: "400 maximum context (Mistral's wording)", Status: 400, Code: harness.CodeContextWindowExceeded,
		OpenAI:    `{"error":{"message":"Prompt contains 40000 tokens, too large for model with 32768 maximum context length","type":"invalid_request_error","code":null}}`,
		Anthropic: `{"type":"error","error":{"type":"invalid_request_error","message":"Prompt contains 40000 tokens, too large for model with 32768 maximum context length"}}`,
	},
	{
		Name: "413 request too large", Status: 413, Code: harness.CodeContextWindowExceeded,
		OpenAI:    `{"error":{"message":"Request exceeds the maximum size","type":"request_too_large","code":null}}`,
		Anthropic: `{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}`,
	},
	{Name: "413 without a word of the context", Status: 413, Code: harness.CodeUnknown},
	{
		Name: "429 insufficient quota (no rate to wait out)", Status: 429, Code: harness.CodeUnknown, NoHint: true,
		OpenAI:    `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`,
		Anthropic: `{"type":"error","error":{"type":"insufficient_quota","message":"You exceeded your current quota"}}`,
	},
	{Name: "502 non-JSON body", Status: 502, Code: harness.CodeServer, OpenAI: "<html>bad gateway</html>", Anthropic: "<html>bad gateway</html>"},
	{Name: "500 empty body", Status: 500, Code: harness.CodeServer, OpenAI: "-", Anthropic: "-"},
}

// BodyFor returns the body to serve: the case's own, none for "-", or a generic one.
func BodyFor(own, generic string) string {
	switch own {
	case "":
		return generic
	case "-":
		return ""
	}
	return own
}

// RetryAfterCase is one set of retry headers and the hint in milliseconds it must give.
type RetryAfterCase struct {
	Name   string
	Header http.Header
	WantMs float64
}

func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

// RetryAfterCases covers each form, the precedence, and the inputs that must be ignored.
func RetryAfterCases() []RetryAfterCase {
	in := Now.Add(10 * time.Second)
	return []RetryAfterCase{
		{"retry-after-ms", header("retry-after-ms", "1500"), 1500},
		{"retry-after-ms fractional", header("retry-after-ms", "250.5"), 250.5},
		{"retry-after-ms wins over Retry-After", header("retry-after-ms", "700", "Retry-After", "30"), 700},
		{"bad retry-after-ms falls back to Retry-After", header("retry-after-ms", "soon", "Retry-After", "2"), 2000},
		{"delay-seconds", header("Retry-After", "3"), 3000},
		{"IMF-fixdate", header("Retry-After", in.Format(http.TimeFormat)), 10000},
		{"RFC 850 date", header("Retry-After", in.Format("Monday, 02-Jan-06 15:04:05 GMT")), 10000},
		{"asctime date", header("Retry-After", in.Format(time.ANSIC)), 10000},
		{"huge delay-seconds kept (the policy refuses it)", header("Retry-After", "99999999999"), 99999999999000},
		{"delay-seconds beyond float range ignored", header("Retry-After", strings.Repeat("9", 400)), 0},
		{"negative ignored", header("Retry-After", "-5"), 0},
		{"negative retry-after-ms ignored", header("retry-after-ms", "-5"), 0},
		{"fractional seconds ignored", header("Retry-After", "1.5"), 0},
		{"unknown date form ignored", header("Retry-After", in.Format(time.RFC3339)), 0},
		{"date in the past ignored", header("Retry-After", Now.Add(-time.Minute).Format(http.TimeFormat)), 0},
		{"garbage ignored", header("Retry-After", "soon"), 0},
		{"none", header(), 0},
	}
}
