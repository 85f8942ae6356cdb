package harness

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// namedHandler is a request-error handler known by its name, for checking the waterfall's order.
type namedHandler string

func (namedHandler) HandleRequestError(_ *RequestError, next func() bool) (bool, error) {
	return next(), nil
}

// The waterfall is llm-retry then the configured handlers in order, and a copy: the caller's
// slice changed after New changes nothing.
func TestWaterfallHandlersAreACopyInOrder(t *testing.T) {
	for n := range 4 {
		configured := make([]RequestErrorHandler, n)
		for i := range configured {
			configured[i] = namedHandler(rune('a' + i))
		}
		a, err := New(Config{Provider: &nilThenText{}, Handlers: configured})
		require.NoError(t, err)
		want := append([]RequestErrorHandler{&a.retryPlugin}, configured...)
		for i := range configured {
			configured[i] = namedHandler("changed")
		}
		assert.Equal(t, want, a.waterfall.handlers, "%d handlers", n)
	}
}

// Watchers added after OnError hear every agent/error beside it, and a list emitError already
// holds stays as it was.
func TestWatchAfterOnErrorKeepsBoth(t *testing.T) {
	var heard []string
	a, err := New(Config{Provider: &nilThenText{}, OnError: func(AgentError) { heard = append(heard, "on-error") }})
	require.NoError(t, err)
	held := a.watchers
	a.Watch(func(AgentError) { heard = append(heard, "watch") })
	require.Len(t, held, 1)
	a.emitError(AgentError{Source: "test"})
	assert.Equal(t, []string{"on-error", "watch"}, heard)
}
