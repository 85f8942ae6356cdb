package harness

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// panickyError's Error panics: on a nil receiver (as a nil pointer's field read would), or
// always when loud is set.
type panickyError struct{ loud bool }

func (e *panickyError) Error() string {
	if e.loud {
		panic("loud")
	}
	return e.text()
}

// formattingError formats itself: %v calls its Format, not its Error.
type formattingError struct{}

func (formattingError) Error() string                 { return "plain" }
func (formattingError) Format(f fmt.State, verb rune) { _, _ = f.Write([]byte("formatted")) }

func (e *panickyError) text() string {
	_ = *e // a nil receiver panics here
	return "quiet"
}

// LlmError.Error is concatenated, not formatted: it must still be the text fmt gave, for every
// cause, including causes whose Error method panics (the text is in every failed turn's log).
func TestLlmErrorTextIsWhatFmtGave(t *testing.T) {
	failure := Failure{Code: CodeServer, Message: "bad gateway"}
	causes := []error{
		nil,
		errors.New("connection reset"),
		fmt.Errorf("dial: %w", errors.New("refused")),
		&panickyError{},
		(*panickyError)(nil),
		&panickyError{loud: true},
		formattingError{},
	}
	for _, cause := range causes {
		e := &LlmError{Failure: failure, Cause: cause}
		want := fmt.Sprintf("%s: %s", failure.Code, failure.Message)
		if cause != nil {
			want = fmt.Sprintf("%s: %s: %v", failure.Code, failure.Message, cause)
		}
		assert.Equal(t, want, e.Error(), "cause %#v", cause)
	}
	assert.Equal(t, "SERVER: bad gateway: <nil>", (&LlmError{Failure: failure, Cause: (*panickyError)(nil)}).Error())
	assert.Equal(t, "SERVER: bad gateway: formatted", (&LlmError{Failure: failure, Cause: formattingError{}}).Error())
}
