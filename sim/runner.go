package sim

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
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
	// Progress, if set, is called from the workers as seeds finish (done of total).
	Progress func(done, total int)
}

// Seeds lists the seeds the options select, in order.
func (o RunOptions) Seeds() []int64 {
	seeds := make([]int64, 0, o.Count)
	for k := range o.Count {
		if o.Shard.Of > 1 && k%o.Shard.Of != o.Shard.Index-1 {
			continue
		}
		seeds = append(seeds, o.Start+int64(k))
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
	o := RunSchedule(NewSchedule(seed, allowed))
	r := SeedResult{
		Seed: seed, Digest: o.Digest, Violations: o.Violations, Exercised: o.Exercised,
		Outcomes: o.Outcomes, VirtualMs: o.Report.VirtualElapsed.Milliseconds(), Handoffs: o.Report.Handoffs,
	}
	if checkDeterminism {
		again := RunSchedule(NewSchedule(seed, allowed))
		if again.Digest != o.Digest {
			r.Violations = append(r.Violations, properties.Violation{
				Property: DeterminismProperty, AtMs: -1,
				Message: fmt.Sprintf("two runs of seed %d gave different logs (digests %x and %x)", seed, o.Digest[:8], again.Digest[:8]),
			})
		}
	}
	return r
}

// Summary is the result of running many seeds. Its JSON keys are a contract (see README).
type Summary struct {
	Seeds                   int              `json:"seeds"`
	FirstSeed               int64            `json:"firstSeed"`
	Shard                   string           `json:"shard"`
	Workers                 int              `json:"workers"`
	Violations              int              `json:"violations"`
	ViolationsByProperty    map[string]int   `json:"violationsByProperty"`
	FailingSeeds            []int64          `json:"failingSeeds"`
	WallSeconds             float64          `json:"wallSeconds"`
	SimSeconds              float64          `json:"simSeconds"`
	SchedulesPerSecond      float64          `json:"schedulesPerSecond"`
	SchedulesPerSecondCore  float64          `json:"schedulesPerSecondPerCore"`
	SimSecondsPerWallSecond float64          `json:"simSecondsPerWallSecond"`
	Handoffs                int64            `json:"handoffs"`
	FaultCoverage           map[string]int   `json:"faultCoverage"`
	OutcomeCoverage         map[string]int   `json:"outcomeCoverage"`
	Digest                  string           `json:"digest"`
	Failures                []SeedViolations `json:"failures"`
	// SlowestSeeds are the seeds that took the most wall time, slowest first: where a livelock
	// or a costly schedule shows up, and what to profile.
	SlowestSeeds []SlowSeed `json:"slowestSeeds"`
}

// SlowSeed is one of a run's slowest seeds: its wall time and its scheduler handoffs.
type SlowSeed struct {
	Seed     int64   `json:"seed"`
	WallMs   float64 `json:"wallMs"`
	Handoffs int     `json:"handoffs"`
}

// slowestSeedsShown is how many of the slowest seeds a summary lists.
const slowestSeedsShown = 5

// slowestSeeds lists the n seeds of results that took the most wall time, slowest first (ties
// by seed, so the list is stable).
func slowestSeeds(results []SeedResult, n int) []SlowSeed {
	order := make([]int, len(results))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ra, rb := results[order[a]], results[order[b]]
		if ra.Wall != rb.Wall {
			return ra.Wall > rb.Wall
		}
		return ra.Seed < rb.Seed
	})
	slow := make([]SlowSeed, 0, min(n, len(results)))
	for _, i := range order[:min(n, len(order))] {
		r := results[i]
		slow = append(slow, SlowSeed{Seed: r.Seed, WallMs: float64(r.Wall.Microseconds()) / 1000, Handoffs: r.Handoffs})
	}
	return slow
}

// SeedViolations lists one failing seed's violations.
type SeedViolations struct {
	Seed       int64                  `json:"seed"`
	Violations []properties.Violation `json:"violations"`
}

// RunSeeds runs the selected seeds on a pool of workers and summarises them. Seeds share
// nothing, and the summary is assembled in seed order, so it is the same whatever Workers is
// (but for the timings).
func RunSeeds(opts RunOptions) Summary {
	seeds := opts.Seeds()
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(seeds)))
	results := make([]SeedResult, len(seeds))
	var next, done atomic.Int64
	var wg sync.WaitGroup
	begin := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(seeds) {
					return
				}
				began := time.Now()
				results[i] = RunSeed(seeds[i], opts.Faults, opts.CheckDeterminism)
				results[i].Wall = time.Since(began)
				if n := done.Add(1); opts.Progress != nil {
					opts.Progress(int(n), len(seeds))
				}
			}
		}()
	}
	wg.Wait()
	wall := time.Since(begin).Seconds()
	s := summarise(results)
	s.FirstSeed, s.Shard, s.Workers, s.WallSeconds = opts.Start, opts.Shard.String(), workers, wall
	s.SlowestSeeds = slowestSeeds(results, slowestSeedsShown)
	if wall > 0 {
		s.SchedulesPerSecond = float64(s.Seeds) / wall
		s.SchedulesPerSecondCore = s.SchedulesPerSecond / float64(min(workers, runtime.GOMAXPROCS(0)))
		s.SimSecondsPerWallSecond = s.SimSeconds / wall
	}
	return s
}

// summarise folds per-seed results, in seed order, into a summary (without timings).
func summarise(results []SeedResult) Summary {
	s := Summary{
		Seeds:                len(results),
		ViolationsByProperty: map[string]int{},
		FailingSeeds:         []int64{},
		FaultCoverage:        map[string]int{},
		OutcomeCoverage:      map[string]int{},
		Failures:             []SeedViolations{},
	}
	for _, name := range faults.Names() {
		s.FaultCoverage[name] = 0
	}
	for _, kind := range []string{harness.EndCompleted, harness.EndMaxTokens, harness.EndAborted, harness.EndError, harness.EndInterrupted} {
		s.OutcomeCoverage[kind] = 0
	}
	digest := sha256.New()
	var seedBytes [8]byte
	for _, r := range results {
		binary.BigEndian.PutUint64(seedBytes[:], uint64(r.Seed))
		digest.Write(seedBytes[:])
		digest.Write(r.Digest[:])
		s.SimSeconds += float64(r.VirtualMs) / 1000
		s.Handoffs += int64(r.Handoffs)
		for _, f := range r.Exercised {
			s.FaultCoverage[f]++
		}
		for _, k := range r.Outcomes {
			s.OutcomeCoverage[k]++
		}
		if len(r.Violations) == 0 {
			continue
		}
		var fired []string
		for _, v := range r.Violations {
			if !slices.Contains(fired, v.Property) {
				fired = append(fired, v.Property)
				s.ViolationsByProperty[v.Property]++
				s.Violations++
			}
		}
		s.FailingSeeds = append(s.FailingSeeds, r.Seed)
		s.Failures = append(s.Failures, SeedViolations{Seed: r.Seed, Violations: r.Violations})
	}
	sort.Slice(s.FailingSeeds, func(i, j int) bool { return s.FailingSeeds[i] < s.FailingSeeds[j] })
	s.Digest = hex.EncodeToString(digest.Sum(nil))
	return s
}
