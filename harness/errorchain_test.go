package harness

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
)

// opaqueWrapper says only its own message; its cause is reachable through Unwrap alone, like a
// JavaScript error with a cause.
type opaqueWrapper struct {
	msg   string
	cause error
}

func (e *opaqueWrapper) Error() string { return e.msg }
func (e *opaqueWrapper) Unwrap() error { return e.cause }

func TestErrorChain(t *testing.T) {
	refused := errors.New("connect: connection refused")
	cyclic := &opaqueWrapper{msg: "loop"}
	cyclic.cause = &opaqueWrapper{msg: "inner", cause: cyclic}
	shared := errors.New("disk full")
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"plain", errors.New("boom"), "boom"},
		{"wrapped with %w, each message once", fmt.Errorf("fetch failed: %w", fmt.Errorf("dial tcp: %w", refused)), "fetch failed: dial tcp: connect: connection refused"},
		{"opaque wrapper adds its cause", &opaqueWrapper{msg: "TypeError: fetch failed", cause: refused}, "TypeError: fetch failed: connect: connection refused"},
		{"join", errors.Join(errors.New("a"), errors.New("b")), "[a; b]"},
		{"join inside a wrapper", fmt.Errorf("both failed: %w", errors.Join(errors.New("a"), &opaqueWrapper{msg: "b", cause: refused})), "both failed: [a; b: connect: connection refused]"},
		{"cycle", cyclic, "loop: inner: <circular cause>"},
		{"a shared cause printed once", errors.Join(shared, fmt.Errorf("retry: %w", shared)), "[disk full; retry: disk full]"},
		{"repeat in one join", errors.Join(shared, shared), "[disk full]"},
		{"multi %w keeps its message", fmt.Errorf("x: %w, y: %w", errors.New("e1"), errors.New("e2")), "x: e1, y: e2"},
		{"llm error", &LlmError{Failure: Failure{Code: CodeTransport, Message: "stream reset"}, Cause: refused}, "TRANSPORT: stream reset: connect: connection refused"},
		{"nil", nil, "<nil>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, ErrorChain(c.err))
		})
	}
}

// uncomparable errors cannot be map keys; ErrorChain must still terminate on them.
type sliceError []string

func (e sliceError) Error() string { return "slice error" }
func (e sliceError) Unwrap() error { return e }

func TestErrorChainTerminatesOnUncomparableSelfCycle(t *testing.T) {
	got := ErrorChain(sliceError{"x"})
	assert.Contains(t, got, "<cause chain too deep>")
}

func TestFailureOf(t *testing.T) {
	f, ok := FailureOf(fmt.Errorf("provider: %w", &LlmError{Failure: Failure{Code: CodeRateLimit, Message: "slow down", ProviderRetryAfterMs: -5, Status: 429}}))
	assert.True(t, ok)
	assert.Equal(t, Failure{Code: CodeRateLimit, Message: "slow down", Status: 429}, f, "a negative hint is dropped")
	f, ok = FailureOf(fmt.Errorf("decode: %w", errors.New("unexpected EOF")))
	assert.False(t, ok)
	assert.Equal(t, Failure{Code: CodeUnknown, Message: "decode: unexpected EOF"}, f)
}

func TestErrorChainCauseInsideTheMessage(t *testing.T) {
	assert.Equal(t, "unexpected EOF (while reading body)", ErrorChain(fmt.Errorf("%w (while reading body)", io.ErrUnexpectedEOF)))
	deeper := &opaqueWrapper{msg: "read failed", cause: errors.New("disk gone")}
	assert.Equal(t, "body: read failed: disk gone (retry later)", ErrorChain(fmt.Errorf("body: %w (retry later)", deeper)))
}
