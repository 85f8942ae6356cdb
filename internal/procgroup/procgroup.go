// Package procgroup keeps the processes a command starts tied to it: a watched child leads a
// process group of its own, so that one signal reaches it and everything it started; every
// process dies with the one that started it (Pdeathsig on Linux); and a stopping process passes
// its signal on to its group before it re-raises it on itself.
package procgroup

import (
	"os"
	"os/signal"
	"time"
)

// reraiseGrace is how long Reraise waits for the re-raised signal to end the process before it
// exits by itself.
const reraiseGrace = 2 * time.Second

// Catchable lists the signals a stopping command handles, minus those the process was started
// ignoring (a command run under nohup keeps ignoring SIGHUP, as its children do).
func Catchable(signals ...os.Signal) []os.Signal {
	var kept []os.Signal
	for _, s := range signals {
		if !signal.Ignored(s) {
			kept = append(kept, s)
		}
	}
	return kept
}
