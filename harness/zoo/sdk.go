package zoo

import (
	"fmt"
	"math"

	"github.com/turnsim/turnsim/harness"
)

// The official SDKs' retry loop, as the Anthropic and OpenAI Python and TypeScript SDKs ship it
// (their _calculate_retry_timeout / calculateDefaultRetryTimeoutMillis): DEFAULT_MAX_RETRIES 2,
// INITIAL_RETRY_DELAY 0.5 s, MAX_RETRY_DELAY 8 s. The n-th retry waits
//
//	min(0.5 s·2^(n-1), 8 s) · (1 − 0.25·random)      a factor in (0.75, 1]
//
// unless the response carried a Retry-After (retry-after-ms or retry-after) in (0, 60 s]: then
// that, exactly, with no jitter. A hint above 60 s is not trusted and the formula applies: the
// SDKs do not give up on it, so neither does this. The SDKs retry 408, 409, 429, 5xx and
// connection errors: here RATE_LIMIT, SERVER, TIMEOUT and TRANSPORT. An empty 200 answer is not
// an HTTP failure they would retry, so EMPTY_RESPONSE is handed down the waterfall.
//
// The hint is rounded up to whole milliseconds (waiting a fraction longer than asked is safe;
// shorter is not), so its cap is retryAfterMaxMs and CapMs is the larger of the two caps.

// SDKParams parameterise sdk.
type SDKParams struct {
	MaxRetries     int     `json:"maxRetries,omitempty"`
	InitialDelayMs float64 `json:"initialDelayMs"`
	MaxDelayMs     float64 `json:"maxDelayMs"`
	// JitterRatio r scales the delay by (1 − r·random), a factor in (1 − r, 1]; within [0, 1].
	JitterRatio float64 `json:"jitterRatio"`
	// RetryAfterMaxMs is the longest provider Retry-After used as given; 0 ignores every hint.
	RetryAfterMaxMs float64 `json:"retryAfterMaxMs"`
	Always          bool    `json:"always,omitempty"`
}

// DefaultSDKParams are the SDKs' constants.
func DefaultSDKParams() SDKParams {
	return SDKParams{MaxRetries: 2, InitialDelayMs: 500, MaxDelayMs: 8000, JitterRatio: 0.25, RetryAfterMaxMs: 60000}
}

// Validate refuses a negative, NaN or infinite delay, a cap below the initial delay, a jitter
// outside [0, 1] and a budget that does not fit the mode, naming the field.
func (p SDKParams) Validate() error {
	const name = "sdk"
	if err := checkDelay(name, "initialDelayMs", p.InitialDelayMs); err != nil {
		return err
	}
	if err := checkCap(name, "maxDelayMs", p.MaxDelayMs, "initialDelayMs", p.InitialDelayMs); err != nil {
		return err
	}
	if math.IsNaN(p.JitterRatio) || p.JitterRatio < 0 || p.JitterRatio > 1 {
		return &ParamsError{name, "jitterRatio", fmt.Sprintf("%g is outside [0, 1]", p.JitterRatio)}
	}
	if err := checkDelay(name, "retryAfterMaxMs", p.RetryAfterMaxMs); err != nil {
		return err
	}
	return checkBudget(name, p.MaxRetries, p.Always)
}

// sdkRetryableCodes are the failures the SDKs retry.
var sdkRetryableCodes = []string{harness.CodeRateLimit, harness.CodeServer, harness.CodeTimeout, harness.CodeTransport}

// SDK is the official SDKs' retry loop.
type SDK struct{ p SDKParams }

var _ harness.RetryStrategy = SDK{}

// NewSDK validates p and returns the strategy.
func NewSDK(p SDKParams) (SDK, error) {
	if err := p.Validate(); err != nil {
		return SDK{}, err
	}
	return SDK{p: p}, nil
}

// Key spells out every parameter.
func (s SDK) Key() string {
	return fmt.Sprintf("sdk/initial=%s/max=%s/jitter=%s/retry-after-max=%s%s", num(s.p.InitialDelayMs), num(s.p.MaxDelayMs),
		num(s.p.JitterRatio), num(s.p.RetryAfterMaxMs), budgetKey(s.p.MaxRetries, s.p.Always))
}

// Mode is normal (the SDKs' two retries) unless the params say always.
func (s SDK) Mode() harness.Mode { return modeOf(s.p.Always) }

// Budget is maxRetries.
func (s SDK) Budget() int { return s.p.MaxRetries }

// CapMs is the larger of maxDelay and the longest Retry-After it honours.
func (s SDK) CapMs() float64 { return math.Max(s.p.MaxDelayMs, s.p.RetryAfterMaxMs) }

// Decide uses a Retry-After in (0, retryAfterMaxMs] exactly (drawing nothing), and otherwise
// the jittered formula (one draw).
func (s SDK) Decide(c harness.RetryContext) harness.RetryDecision {
	if givesUpOn(s.p.Always, sdkRetryableCodes, c.Failure) {
		return harness.GiveUp()
	}
	if hint := c.Failure.ProviderRetryAfterMs; c.Failure.HasRetryAfter() && hint <= s.p.RetryAfterMaxMs {
		return harness.Wait(math.Min(math.Ceil(hint), s.CapMs()))
	}
	exp := exponentialMs(s.p.InitialDelayMs, s.p.MaxDelayMs, c.Retry)
	return harness.Wait(wholeMs(exp*(1-s.p.JitterRatio*c.Random()), s.p.MaxDelayMs))
}
