package sim

import (
	"context"
	"crypto/sha256"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/turnsim/turnsim/properties"
)

// Shard is one machine's share of a seed range: seed number k of the range (from 0) belongs to
// shard Index (from 1) of Of when k mod Of = Index-1. The zero value means the whole range.
type Shard struct {
	Index, Of int
}

// ParseShard parses "i/n" with 1 ≤ i ≤ n.
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(i)
	of, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("sim: shard %q is not of the form i/n (for example 2/4)", s)
	}
	if of < 1 || index < 1 || index > of {
		return Shard{}, fmt.Errorf("sim: shard %q: i must be between 1 and n, and n at least 1", s)
	}
	return Shard{Index: index, Of: of}, nil
}

func (s Shard) String() string {
	if s.Of == 0 {
		return "1/1"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Of)
}

// RunOptions say which seeds to run and how.
type RunOptions struct {
	// Start is the first seed of the range, Count how many seeds it holds.
	Start int64
	Count int
	Shard Shard
	// Workers run seeds in parallel; 0 means GOMAXPROCS.
	Workers int
	// Faults restricts every seed's swarm to these faults; nil means the whole catalogue.
	Faults []string
	// CheckDeterminism runs every seed twice and reports a seed whose two logs differ.
	CheckDeterminism bool
	// Progress, if set, is called from the workers as seeds finish: done of total, failing of
	// them so far (what a progress line reports).
	Progress func(done, total, failing int)
	// Agent is the user's agent to run in every seed's world (the zero Agent: turnsim's own),
	// with its own properties.
	Agent Agent
	// Stop, once done, makes the workers take no further seed: the seeds under way finish, and
	// the summary is of the seeds run (Summary.Interrupted). Nil: run them all.
	Stop context.Context
}

// Selected is how many seeds the options select: Count, or this shard's share of it. It is
// computed, never listed, so any Count up to the int range costs nothing up front.
func (o RunOptions) Selected() int {
	if o.Count <= 0 {
		return 0
	}
	if o.Shard.Of <= 1 {
		return o.Count
	}
	first := o.Shard.Index - 1 // the shard's first seed number in the range
	if first >= o.Count {
		return 0
	}
	return (o.Count-1-first)/o.Shard.Of + 1
}

// SeedAt is the i-th selected seed (0 ≤ i < Selected()), in order.
func (o RunOptions) SeedAt(i int) int64 {
	if o.Shard.Of <= 1 {
		return o.Start + int64(i)
	}
	return o.Start + int64(o.Shard.Index-1) + int64(i)*int64(o.Shard.Of)
}

// Seeds lists the seeds the options select, in order: for tests and small ranges only (RunSeeds
// never lists them).
func (o RunOptions) Seeds() []int64 {
	seeds := make([]int64, 0, min(o.Selected(), 1<<16))
	for i := range o.Selected() {
		seeds = append(seeds, o.SeedAt(i))
	}
	return seeds
}

// DeterminismProperty is the pseudo-property a seed breaks when two runs of it differ.
const DeterminismProperty = "determinism"

// SeedResult is what the summary keeps of one seed: no log, so that thousands fit in memory.
type SeedResult struct {
	Seed       int64
	Digest     [sha256.Size]byte
	Violations []properties.Violation
	Exercised  []string
	Outcomes   []string
	VirtualMs  int64
	Handoffs   int
	// Wall is the wall-clock time the seed took (both runs when checking determinism): not part
	// of any digest, only of the slowest-seeds report.
	Wall time.Duration
}

// RunSeed runs one seed's schedule (twice when checking determinism).
func RunSeed(seed int64, allowed []string, checkDeterminism bool) SeedResult {
	return RunSeedAgent(seed, allowed, checkDeterminism, Agent{})
}

// RunSeedAgent runs one seed's schedule with the user's agent (twice when checking determinism).
func RunSeedAgent(seed int64, allowed []string, checkDeterminism bool, agent Agent) SeedResult {
	var r SeedResult
	runForResult(agent.runSchedule(seed, allowed), agent, func(o *Outcome) {
		r = SeedResult{
			Seed: seed, Digest: o.Digest, Violations: o.Violations, Exercised: o.Exercised,
			Outcomes: o.Outcomes, VirtualMs: o.Report.VirtualElapsed.Milliseconds(), Handoffs: o.Report.Handoffs,
		}
	})
	if checkDeterminism {
		var again [sha256.Size]byte
		runForResult(agent.runSchedule(seed, allowed), agent, func(o *Outcome) { again = o.Digest })
		if again != r.Digest {
			first, second := r.Digest, again
			r.Violations = append(r.Violations, properties.Violation{
				Property: DeterminismProperty, AtMs: -1,
				Message: fmt.Sprintf("two runs of seed %d gave different logs (digests %x and %x)", seed, first[:8], second[:8]),
			})
		}
	}
	return r
}

// RunSeeds runs the selected seeds on a pool of workers and summarises them. Each worker folds
// the seeds it runs into its own partial summary as they finish, and the partial summaries are
// merged at the end: memory stays flat whatever the seed count, and since every part of the
// fold is order-independent (counters, the lowest failing seeds, a sum of seed digests), the
// summary is the same whatever Workers is (but for the timings). An agent the harness refuses
// runs no seed: the summary says why in ConfigError, once.
func RunSeeds(opts RunOptions) Summary {
	if err := opts.Agent.Validate(); err != nil {
		s := newFold().summary()
		s.FirstSeed, s.Shard, s.ConfigError = opts.Start, opts.Shard.String(), err.Error()
		return s
	}
	total := opts.Selected()
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, total))
	folds := make([]*fold, workers)
	var next, done, failing atomic.Int64
	var wg sync.WaitGroup
	begin := time.Now()
	for w := range workers {
		folds[w] = newFold()
		wg.Add(1)
		go func(f *fold) {
			defer wg.Done()
			for {
				if opts.Stop != nil && opts.Stop.Err() != nil {
					return
				}
				i := next.Add(1) - 1
				if i >= int64(total) {
					return
				}
				began := time.Now()
				r := RunSeedAgent(opts.SeedAt(int(i)), opts.Faults, opts.CheckDeterminism, opts.Agent)
				r.Wall = time.Since(began)
				failed := len(r.Violations) > 0
				f.add(r)
				if failed {
					failing.Add(1)
				}
				n := done.Add(1)
				if opts.Progress != nil {
					opts.Progress(int(n), total, int(failing.Load()))
				}
			}
		}(folds[w])
	}
	wg.Wait()
	wall := time.Since(begin).Seconds()
	for _, f := range folds[1:] {
		folds[0].merge(f)
	}
	s := folds[0].summary()
	s.FirstSeed, s.Shard, s.Workers, s.WallSeconds = opts.Start, opts.Shard.String(), workers, wall
	s.Interrupted = s.Seeds < total
	if wall > 0 {
		s.SchedulesPerSecond = float64(s.Seeds) / wall
		s.SchedulesPerSecondCore = s.SchedulesPerSecond / float64(min(workers, runtime.GOMAXPROCS(0)))
		s.SimSecondsPerWallSecond = s.SimSeconds / wall
	}
	return s
}
