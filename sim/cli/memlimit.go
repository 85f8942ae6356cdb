package cli

import (
	"os"
	"runtime/debug"
)

// How `simrun run` sets the collector: a sweep's live heap is small and fixed (about 1 MB, a
// schedule's world per worker), and each seed allocates about 75 KB of garbage, so with Go's
// defaults (GOGC=100, a 4 MB floor goal) the collector ran every 18 seeds and took about a tenth
// of the CPU, whatever the seed count. So a run sets GOGC=400 and a soft memory limit, which then
// decides when the collector runs: over 5,000 seeds (GODEBUG=gctrace=1) 283 collections with the
// defaults and a 14 MiB limit, 55 with GOGC=400 and 20 MiB (max RSS 18.8 MB → 25.3 MB).
//
// The limit also keeps resident memory flat: max RSS is a high-water mark, and over a million
// seeds a rare extreme seed leaves garbage enough to raise it. Measured at commit ace7073 without
// a limit: 19.3 MB at 20,000 seeds and 23.0 MB at 1,000,000, +19 %; with a 14 MiB limit 20.3 MB
// (+5 %). Each worker holds one schedule's live heap (about 1.5 MB at most), so the limit grows
// with the workers. A GOGC or GOMEMLIMIT the user set is kept.
const (
	memoryLimitBase      = 16 << 20
	memoryLimitPerWorker = 2 << 20
	gcPercent            = 400
)

// memoryLimit is the soft limit for a run on workers workers, and whether to set it (not when
// the user set GOMEMLIMIT).
func memoryLimit(workers int, userLimit string) (int64, bool) {
	if userLimit != "" {
		return 0, false
	}
	return memoryLimitBase + int64(workers)*memoryLimitPerWorker, true
}

// tuneCollector sets memoryLimit's limit and, unless the user chose one, GOGC=400 for this
// process.
func tuneCollector(workers int) {
	limit, ok := memoryLimit(workers, os.Getenv("GOMEMLIMIT"))
	if !ok {
		return
	}
	debug.SetMemoryLimit(limit)
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}
