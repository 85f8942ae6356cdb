package cli

import (
	"os"
	"os/signal"
)

// catchSignals makes a stopping signal (stoppingSignals, by platform) stop the command (see
// stop). It returns the function that lets the signals go again.
func catchSignals() (release func()) {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, stoppingSignals()...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-signals:
			stop(s)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(signals)
		close(done)
	}
}
