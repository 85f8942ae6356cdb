package properties

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/turnsim/turnsim/harness"
)

// The oracle's statement of the table, case by case: what the bytes must become.
func TestExpectWire(t *testing.T) {
	at := time.UnixMilli(1_800_000_000_000) // 2027-01-15T08:00:00Z
	for name, tc := range map[string]struct {
		e    WireExchange
		want wireExpected
	}{
		"whole":                 {WireExchange{Content: true, FinishReason: "stop"}, wireExpected{}},
		"empty":                 {WireExchange{FinishReason: "end_turn", Protocol: "anthropic"}, wireExpected{failed: true, code: harness.CodeEmptyResponse}},
		"content filter":        {WireExchange{Content: true, FinishReason: "content_filter"}, wireExpected{failed: true, code: harness.CodeUnknown}},
		"refusal":               {WireExchange{Content: true, FinishReason: "refusal", Protocol: "anthropic"}, wireExpected{failed: true, code: harness.CodeUnknown}},
		"429 ms":                {WireExchange{Status: 429, RetryAfterMs: "1234.5"}, wireExpected{failed: true, code: harness.CodeRateLimit, status: 429, hintMs: 1234.5}},
		"429 seconds":           {WireExchange{Status: 429, RetryAfter: "3"}, wireExpected{failed: true, code: harness.CodeRateLimit, status: 429, hintMs: 3000}},
		"429 date":              {WireExchange{Status: 429, RetryAfter: "Fri, 15 Jan 2027 08:00:02 GMT", HeadAt: at}, wireExpected{failed: true, code: harness.CodeRateLimit, status: 429, hintMs: 2000}},
		"429 asctime":           {WireExchange{Status: 429, RetryAfter: "Fri Jan 15 08:00:02 2027", HeadAt: at}, wireExpected{failed: true, code: harness.CodeRateLimit, status: 429, hintMs: 2000}},
		"429 both":              {WireExchange{Status: 429, RetryAfterMs: "700", RetryAfter: "9"}, wireExpected{failed: true, code: harness.CodeRateLimit, status: 429, hintMs: 700}},
		"429 junk":              {WireExchange{Status: 429, RetryAfter: "1.5"}, wireExpected{failed: true, code: harness.CodeRateLimit, status: 429}},
		"429 negative ms":       {WireExchange{Status: 429, RetryAfterMs: "-40"}, wireExpected{failed: true, code: harness.CodeRateLimit, status: 429}},
		"429 quota":             {WireExchange{Status: 429, ErrorType: "insufficient_quota", RetryAfterMs: "1000"}, wireExpected{failed: true, code: harness.CodeUnknown, status: 429}},
		"529":                   {WireExchange{Status: 529}, wireExpected{failed: true, code: harness.CodeServer, status: 529}},
		"408":                   {WireExchange{Status: 408}, wireExpected{failed: true, code: harness.CodeTimeout, status: 408}},
		"401":                   {WireExchange{Status: 401}, wireExpected{failed: true, code: harness.CodeUnknown, status: 401}},
		"400 context by code":   {WireExchange{Status: 400, ErrorType: "invalid_request_error", ErrorCode: "context_length_exceeded"}, wireExpected{failed: true, code: harness.CodeContextWindowExceeded, status: 400}},
		"400 context by words":  {WireExchange{Status: 400, ErrorMessage: "request too large for model context"}, wireExpected{failed: true, code: harness.CodeContextWindowExceeded, status: 400}},
		"413 request too large": {WireExchange{Status: 413, ErrorType: "request_too_large"}, wireExpected{failed: true, code: harness.CodeContextWindowExceeded, status: 413}},
		"400 other":             {WireExchange{Status: 400, ErrorMessage: "bad role"}, wireExpected{failed: true, code: harness.CodeUnknown, status: 400}},
		"event overloaded":      {WireExchange{InStream: true, ErrorType: "overloaded_error"}, wireExpected{failed: true, code: harness.CodeServer}},
		"event by code":         {WireExchange{InStream: true, ErrorCode: "rate_limit_exceeded"}, wireExpected{failed: true, code: harness.CodeRateLimit}},
		"event other":           {WireExchange{InStream: true, ErrorType: "permission_error"}, wireExpected{failed: true, code: harness.CodeUnknown}},
		"malformed":             {WireExchange{Content: true, Malformed: true, FinishReason: "stop"}, wireExpected{failed: true, code: harness.CodeTransport}},
		"cut":                   {WireExchange{Content: true, Cut: true}, wireExpected{failed: true, code: harness.CodeTransport, namesURL: true}},
		"refused":               {WireExchange{Refused: true}, wireExpected{failed: true, code: harness.CodeTransport, namesURL: true}},
		"gave up":               {WireExchange{GaveUp: true, Content: true}, wireExpected{failed: true, code: harness.CodeTimeout}},
	} {
		t.Run(name, func(t *testing.T) {
			got := expectWire(tc.e)
			got.reason = ""
			assert.Equal(t, tc.want, got)
		})
	}
}
