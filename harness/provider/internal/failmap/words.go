package failmap

import "strings"

// contextOverflowCodes are the error types and codes that name a context overflow outright:
// OpenAI's (and Azure's, Groq's) context_length_exceeded, llama.cpp's exceed_context_size_error,
// Anthropic's request_too_large (a request over the byte limit: shrinking the history is what
// helps it too) and LiteLLM's ContextWindowExceededError.
var contextOverflowCodes = []string{"context_length_exceeded", "exceed_context_size_error", "request_too_large", "contextwindowexceedederror", "context_window_exceeded"}

// contextOverflowWords are the phrases providers and compatible servers use for it in the message
// alone, lower-cased: OpenAI and vLLM ("This model's maximum context length is 8192 tokens"),
// Anthropic ("prompt is too long: 210000 tokens > 200000 maximum", "input length and max_tokens
// exceed context limit"), llama.cpp ("the request exceeds the available context size"), Mistral
// ("too large for model with 32768 maximum context length"), gateways ("request too large for
// model context"), Gemini's OpenAI endpoint ("exceeds the maximum number of tokens allowed").
var contextOverflowWords = []string{
	"context length", "context window", "context limit", "context size", "maximum context",
	"prompt is too long", "too large for model", "model context", "exceeds the maximum number of tokens",
}

// ContextOverflow reports whether an error's type, code or message says the request does not fit
// the model's context window.
func ContextOverflow(errType, code, message string) bool {
	for _, c := range contextOverflowCodes {
		if strings.EqualFold(errType, c) || strings.EqualFold(code, c) {
			return true
		}
	}
	m := strings.ToLower(message)
	for _, w := range contextOverflowWords {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

// QuotaSpent reports whether a 429's error type or code is a spent quota or billing limit rather
// than a rate: OpenAI's insufficient_quota (also sent as billing_hard_limit_reached by older
// deployments).
func QuotaSpent(errType, code string) bool {
	for _, c := range []string{"insufficient_quota", "billing_hard_limit_reached"} {
		if strings.EqualFold(errType, c) || strings.EqualFold(code, c) {
			return true
		}
	}
	return false
}
