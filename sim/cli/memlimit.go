package cli

import (
	"os"
	"runtime/debug"
)

// How `simrun run` sets the collector: a sweep's live heap is small and fixed (a schedule's world
// per worker), and each seed leaves garbage many times that, so with Go's defaults (GOGC=100, a
// 4 MB floor goal) the collector ran every few seeds and took a large share of the CPU, whatever
// the seed count. So a run sets GOGC=400 and a soft memory limit, which then decides when the
// collector runs (GODEBUG=gctrace=1 shows the collections; the commits that set these constants
// have the figures).
//
// The limit also keeps resident memory flat: max RSS is a high-water mark, and over a million
// seeds a rare extreme seed leaves garbage enough to raise it. Each worker holds one schedule's
// live heap, so the limit grows with the workers. A GOGC or GOMEMLIMIT the user set is kept.
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
