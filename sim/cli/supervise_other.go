//go:build !unix

package cli

import (
	"os"

	"github.com/turnsim/turnsim/internal/procgroup"
)

// supervise runs the command in this process: without inherited pipes (Windows) there is no
// child to watch.
func supervise([]string, string, string) (int, bool) { return 0, false }

// stoppingSignals are the signals that stop the command.
func stoppingSignals() []os.Signal { return procgroup.Stopping }
