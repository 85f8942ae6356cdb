//go:build !unix

package sim

import "time"

// processCPU is not measured off unix: benchmarks then report 0 CPU time.
func processCPU() time.Duration { return 0 }
