//go:build !unix

package cli

import (
	"os"
	"os/signal"

	"github.com/turnsim/turnsim/internal/procgroup"
)

// supervise runs the command in this process: without inherited pipes (Windows) there is no
// child to watch.
func supervise([]string, string, string) (int, bool) { return 0, false }

// catchSignals makes an interrupt stop the command (see stop).
func catchSignals() (release func()) {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, procgroup.Stopping...)
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
