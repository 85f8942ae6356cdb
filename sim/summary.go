package sim

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
)

// Summary is the result of running many seeds. Its JSON keys are a contract (see README).
//
// A summary is folded from per-seed results as they finish, in whatever order the workers
// finish them, so its memory does not grow with the seed count: coverage is counters, the
// failures kept are bounded (FailuresKept, the lowest seeds), and the digest is a sum. Every
// field but the timings is therefore the same whatever Workers or GOMAXPROCS is.
type Summary struct {
	Seeds                int            `json:"seeds"`
	FirstSeed            int64          `json:"firstSeed"`
	Shard                string         `json:"shard"`
	Workers              int            `json:"workers"`
	Violations           int            `json:"violations"`
	ViolationsByProperty map[string]int `json:"violationsByProperty"`
	// FailingSeeds are the failing seeds, ascending: all of them up to FailuresKept, then the
	// lowest FailuresKept (FailingSeedCount counts them all).
	FailingSeeds []int64 `json:"failingSeeds"`
	// FailingSeedCount is how many seeds failed, kept in FailingSeeds or not.
	FailingSeedCount int `json:"failingSeedCount"`
	// Interrupted is set when RunOptions.Stop ended the run before every selected seed ran: the
	// summary is of the seeds that did (absent from the JSON otherwise).
	Interrupted             bool           `json:"interrupted,omitempty"`
	WallSeconds             float64        `json:"wallSeconds"`
	SimSeconds              float64        `json:"simSeconds"`
	SchedulesPerSecond      float64        `json:"schedulesPerSecond"`
	SchedulesPerSecondCore  float64        `json:"schedulesPerSecondPerCore"`
	SimSecondsPerWallSecond float64        `json:"simSecondsPerWallSecond"`
	Handoffs                int64          `json:"handoffs"`
	FaultCoverage           map[string]int `json:"faultCoverage"`
	OutcomeCoverage         map[string]int `json:"outcomeCoverage"`
	// Digest identifies every log of the run, whatever order the seeds ran in, and composes
	// across shards. For each seed k, h(k) = SHA-256(k as 8 bytes big-endian ‖ SHA-256 of k's
	// JSON Lines log), read as a 256-bit big-endian unsigned integer; Digest is the sum of h(k)
	// over the run's seeds modulo 2^256, as 64 lowercase hex digits (the empty run: 64 zeros).
	// So a merge of the summaries of shards 1/n … n/n of a range adds their digests modulo 2^256
	// (AddDigests) and equals the unsharded run's digest; unlike XOR, a seed counted twice does
	// not cancel out.
	Digest   string           `json:"digest"`
	Failures []SeedViolations `json:"failures"`
	// SlowestSeeds are the seeds that took the most wall time, slowest first: where a livelock
	// or a costly schedule shows up, and what to profile.
	SlowestSeeds []SlowSeed `json:"slowestSeeds"`
	// ConfigError is set when the agent's configuration was refused (see Agent.Validate): then
	// no seed ran.
	ConfigError string `json:"configError,omitempty"`
}

// FailuresKept bounds the failing seeds a summary lists (with their violations): a planted bug
// over a million seeds would otherwise keep a million lists. The counts cover every seed.
const FailuresKept = 1000

// SlowSeed is one of a run's slowest seeds: its wall time and its scheduler handoffs.
type SlowSeed struct {
	Seed     int64   `json:"seed"`
	WallMs   float64 `json:"wallMs"`
	Handoffs int     `json:"handoffs"`
}

// SlowestSeedsShown is how many of the slowest seeds a summary lists (simrun merge keeps as many).
const SlowestSeedsShown = 5

// SeedViolations lists one failing seed's violations.
type SeedViolations struct {
	Seed       int64                  `json:"seed"`
	Violations []properties.Violation `json:"violations"`
}

// seedDigest is h(k) of Summary.Digest: the seed number and its log's digest, hashed together.
func seedDigest(seed int64, log [sha256.Size]byte) [sha256.Size]byte {
	var b [8 + sha256.Size]byte
	binary.BigEndian.PutUint64(b[:8], uint64(seed))
	copy(b[8:], log[:])
	return sha256.Sum256(b[:])
}

// digestSum is a sum of seed digests modulo 2^256, as four big-endian 64-bit limbs.
type digestSum [4]uint64

// add adds a 256-bit big-endian number, modulo 2^256.
func (s *digestSum) add(h [sha256.Size]byte) {
	var carry uint64
	for i := 3; i >= 0; i-- {
		limb := binary.BigEndian.Uint64(h[8*i:])
		sum := s[i] + limb
		c1 := boolBit(sum < limb)
		sum2 := sum + carry
		c2 := boolBit(sum2 < sum)
		s[i], carry = sum2, c1|c2
	}
}

func boolBit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (s digestSum) bytes() [sha256.Size]byte {
	var b [sha256.Size]byte
	for i, limb := range s {
		binary.BigEndian.PutUint64(b[8*i:], limb)
	}
	return b
}

// AddDigests combines the digests of summaries over disjoint seed sets (shards of one range)
// into the digest of their union, as Summary.Digest defines it. A digest that is not 64 hex
// digits is an error.
func AddDigests(digests ...string) (string, error) {
	var sum digestSum
	for _, d := range digests {
		raw, err := hex.DecodeString(d)
		if err != nil || len(raw) != sha256.Size {
			return "", fmt.Errorf("sim: digest %.80q is not 64 hex digits", d)
		}
		sum.add([sha256.Size]byte(raw))
	}
	b := sum.bytes()
	return hex.EncodeToString(b[:]), nil
}

// fold is a summary being built: each worker folds the seeds it ran into its own, and the
// workers' folds are merged at the end. Its size is bounded whatever the seed count.
type fold struct {
	seeds                int
	virtualMs, handoffs  int64
	violations           int
	violationsByProperty map[string]int
	failingSeeds         int
	failures             []SeedViolations // the lowest failing seeds, at most FailuresKept, unordered
	faultCoverage        map[string]int
	outcomeCoverage      map[string]int
	digest               digestSum
	slowest              []SeedResult // at most SlowestSeedsShown, slowest first
}

func newFold() *fold {
	return &fold{violationsByProperty: map[string]int{}, faultCoverage: map[string]int{}, outcomeCoverage: map[string]int{}}
}

// add folds one seed's result in.
func (f *fold) add(r SeedResult) {
	f.seeds++
	f.virtualMs += r.VirtualMs
	f.handoffs += int64(r.Handoffs)
	f.digest.add(seedDigest(r.Seed, r.Digest))
	for _, name := range r.Exercised {
		f.faultCoverage[name]++
	}
	for _, kind := range r.Outcomes {
		f.outcomeCoverage[kind]++
	}
	f.addSlow(r)
	if len(r.Violations) == 0 {
		return
	}
	var fired []string
	for _, v := range r.Violations {
		if !slices.Contains(fired, v.Property) {
			fired = append(fired, v.Property)
			f.violationsByProperty[v.Property]++
			f.violations++
		}
	}
	f.failingSeeds++
	f.keepFailure(SeedViolations{Seed: r.Seed, Violations: r.Violations})
}

// keepFailure keeps a failure if it is among the lowest FailuresKept seeds seen.
func (f *fold) keepFailure(sv SeedViolations) {
	if len(f.failures) < FailuresKept {
		f.failures = append(f.failures, sv)
		return
	}
	highest := 0
	for i, kept := range f.failures {
		if kept.Seed > f.failures[highest].Seed {
			highest = i
		}
	}
	if sv.Seed < f.failures[highest].Seed {
		f.failures[highest] = sv
	}
}

// slower orders seeds slowest first, ties by seed, so the list is stable.
func slower(a, b SeedResult) bool {
	if a.Wall != b.Wall {
		return a.Wall > b.Wall
	}
	return a.Seed < b.Seed
}

// addSlow keeps r if it is among the slowest seeds seen; only what the report shows is kept.
func (f *fold) addSlow(r SeedResult) {
	if len(f.slowest) == SlowestSeedsShown && !slower(r, f.slowest[len(f.slowest)-1]) {
		return
	}
	r = SeedResult{Seed: r.Seed, Wall: r.Wall, Handoffs: r.Handoffs}
	i := sort.Search(len(f.slowest), func(i int) bool { return slower(r, f.slowest[i]) })
	f.slowest = slices.Insert(f.slowest, i, r)
	if len(f.slowest) > SlowestSeedsShown {
		f.slowest = f.slowest[:SlowestSeedsShown]
	}
}

// merge folds another worker's fold into this one.
func (f *fold) merge(o *fold) {
	f.seeds += o.seeds
	f.virtualMs += o.virtualMs
	f.handoffs += o.handoffs
	f.violations += o.violations
	f.failingSeeds += o.failingSeeds
	f.digest.add(o.digest.bytes())
	for k, n := range o.violationsByProperty {
		f.violationsByProperty[k] += n
	}
	for k, n := range o.faultCoverage {
		f.faultCoverage[k] += n
	}
	for k, n := range o.outcomeCoverage {
		f.outcomeCoverage[k] += n
	}
	for _, sv := range o.failures {
		f.keepFailure(sv)
	}
	for _, r := range o.slowest {
		f.addSlow(r)
	}
}

// summary renders the fold (without timings): every catalogue fault and turn outcome is listed,
// 0 included, and the failures are in seed order.
func (f *fold) summary() Summary {
	s := Summary{
		Seeds:                f.seeds,
		Violations:           f.violations,
		ViolationsByProperty: f.violationsByProperty,
		FailingSeeds:         []int64{},
		FailingSeedCount:     f.failingSeeds,
		SimSeconds:           float64(f.virtualMs) / 1000,
		Handoffs:             f.handoffs,
		FaultCoverage:        map[string]int{},
		OutcomeCoverage:      map[string]int{},
		Failures:             slices.Clone(f.failures),
		SlowestSeeds:         make([]SlowSeed, 0, len(f.slowest)),
	}
	if s.Failures == nil {
		s.Failures = []SeedViolations{}
	}
	for _, name := range faults.Names() {
		s.FaultCoverage[name] = f.faultCoverage[name]
	}
	for _, kind := range []string{harness.EndCompleted, harness.EndMaxTokens, harness.EndAborted, harness.EndError, harness.EndInterrupted} {
		s.OutcomeCoverage[kind] = f.outcomeCoverage[kind]
	}
	slices.SortFunc(s.Failures, func(a, b SeedViolations) int { return cmp.Compare(a.Seed, b.Seed) })
	for _, sv := range s.Failures {
		s.FailingSeeds = append(s.FailingSeeds, sv.Seed)
	}
	for _, r := range f.slowest {
		s.SlowestSeeds = append(s.SlowestSeeds, SlowSeed{Seed: r.Seed, WallMs: float64(r.Wall.Microseconds()) / 1000, Handoffs: r.Handoffs})
	}
	digest := f.digest.bytes()
	s.Digest = hex.EncodeToString(digest[:])
	return s
}

// slowestSeeds lists the n seeds of results that took the most wall time, slowest first (ties
// by seed).
func slowestSeeds(results []SeedResult, n int) []SlowSeed {
	f := newFold()
	for _, r := range results {
		f.addSlow(r)
	}
	s := f.summary().SlowestSeeds
	return s[:min(n, len(s))]
}
