package cli

import (
	"context"
	"os"
	"os/signal"
	"sync/atomic"

	"github.com/turnsim/turnsim/internal/procgroup"
)

// catchSignals makes a stopping signal (stoppingSignals, by platform) stop the command (see
// stop), unless a command that can end cleanly has asked for the first one (interruptible). It
// returns the function that lets the signals go again.
func catchSignals() (release func()) {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, stoppingSignals()...)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-signals:
				if end := onInterrupt.Swap(nil); end != nil && s != procgroup.Quit {
					interruptedBy.Store(&s)
					(*end)()
					continue // a second signal stops the process
				}
				stop(s)
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(signals)
		close(done)
	}
}

// onInterrupt is what the first stopping signal does instead of stopping the process, while a
// command that can end cleanly runs (interruptible).
var onInterrupt atomic.Pointer[context.CancelFunc]

// interruptedBy is the signal that ended an interruptible context, if one did.
var interruptedBy atomic.Pointer[os.Signal]

// endInterrupted ends the process by the signal that interrupted the command, once the command
// has said what it did: with the status that signal gives (128+signal), as if it had stopped it.
// It returns only when no signal interrupted it (in-process, say).
func endInterrupted() {
	if s := interruptedBy.Load(); s != nil {
		stop(*s)
	}
}

// interruptible returns a context the first stopping signal cancels (SIGQUIT still dumps and
// stops), for a command that ends cleanly when asked (serve: it stops listening and reports what
// it served); a second signal stops the process as it stops any command. The release ends the
// request. In-process (cli.Main handed other writers) no signal is caught: the context ends only
// by its release.
func interruptible() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	onInterrupt.Store(&cancel)
	return ctx, func() {
		onInterrupt.Store(nil)
		cancel()
	}
}
