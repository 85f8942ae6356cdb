package harness

import (
	"context"
	"sync"
)

// pluginLifetime is the llm-retry plugin's lifetime, ended once by disposal. Its context, which
// only a backoff wait needs (to end at once when the plugin is disposed), is made at the first
// wait: most agents never wait.
type pluginLifetime struct {
	mu    sync.Mutex
	ended bool
	// ctx and end are made by the first context call; ctx is already cancelled if the lifetime
	// ended before.
	ctx context.Context
	end context.CancelCauseFunc
}

// over reports whether the lifetime has ended: what ctx.Err() != nil said of the context.
func (l *pluginLifetime) over() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ended
}

// finish ends the lifetime, cancelling its context (if made) with errPluginDisposed. The cancel
// runs with the lock let go, as it ran with none before: nothing it reaches can wait on the lock.
func (l *pluginLifetime) finish() {
	l.mu.Lock()
	l.ended = true
	end := l.end
	l.mu.Unlock()
	if end != nil {
		end(errPluginDisposed)
	}
}

// context is the lifetime as a context, done (with cause errPluginDisposed) once it has ended,
// made at the first call.
func (l *pluginLifetime) context() context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ctx == nil {
		l.ctx, l.end = context.WithCancelCause(context.Background())
		if l.ended {
			l.end(errPluginDisposed)
		}
	}
	return l.ctx
}
