package sim

import (
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/turnsim/turnsim/sim/sched"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
)

// sweep picks a seed count: the full one normally, a small one under the race detector.
func sweep(full int) int {
	if raceEnabled {
		return max(full/40, 50)
	}
	return full
}

// The clean build reports nothing over 20,000 seeds of the default swarm.
func TestCleanBuildReportsNothing(t *testing.T) {
	s := RunSeeds(RunOptions{Start: 1, Count: sweep(20000)})
	assert.Zero(t, s.Violations, "violations: %v; first failures: %+v", s.ViolationsByProperty, first(s.Failures, 3))
	assert.Empty(t, s.FailingSeeds)
}

func first[T any](xs []T, n int) []T { return xs[:min(n, len(xs))] }

// Over 10,000 default seeds every fault strikes and every turn outcome the world can produce
// appears in at least 1% of seeds; and 10,000 runs leave no goroutine behind.
func TestCoverageAndNoLeaks(t *testing.T) {
	noLeaks(t)
	n := sweep(10000)
	s := RunSeeds(RunOptions{Start: 1, Count: n})
	for _, f := range faults.Catalogue() {
		if f.Group == faults.GroupWire {
			continue // sim's tests link no wire (sim/wire's tests hold its coverage)
		}
		assert.GreaterOrEqual(t, s.FaultCoverage[f.Name], n/100, "fault %s struck in %d of %d seeds", f.Name, s.FaultCoverage[f.Name], n)
	}
	for _, kind := range []string{harness.EndCompleted, harness.EndMaxTokens, harness.EndAborted, harness.EndError, harness.EndInterrupted} {
		assert.GreaterOrEqual(t, s.OutcomeCoverage[kind], n/100, "outcome %s in %d of %d seeds", kind, s.OutcomeCoverage[kind], n)
	}
}

// The same seeds give the same digest whatever the number of workers and GOMAXPROCS.
func TestDigestIndependentOfWorkersAndGOMAXPROCS(t *testing.T) {
	n := sweep(2000)
	digests := map[string]string{}
	for _, procs := range []int{1, 4} {
		previous := runtime.GOMAXPROCS(procs)
		for _, workers := range []int{1, 4} {
			s := RunSeeds(RunOptions{Start: 1, Count: n, Workers: workers})
			digests[s.Digest] += " " + string(rune('0'+procs)) + "/" + string(rune('0'+workers))
		}
		runtime.GOMAXPROCS(previous)
	}
	assert.Len(t, digests, 1, "digests by GOMAXPROCS/workers: %v", digests)
}

func TestCheckDeterminismRunsEachSeedTwice(t *testing.T) {
	s := RunSeeds(RunOptions{Start: 500, Count: sweep(300), CheckDeterminism: true})
	assert.Zero(t, s.ViolationsByProperty[DeterminismProperty])
	plain := RunSeeds(RunOptions{Start: 500, Count: sweep(300)})
	assert.Equal(t, plain.Digest, s.Digest)
}

func TestShardsPartitionTheRange(t *testing.T) {
	all := RunOptions{Start: 10, Count: 10}.Seeds()
	var union []int64
	for i := 1; i <= 3; i++ {
		union = append(union, RunOptions{Start: 10, Count: 10, Shard: Shard{Index: i, Of: 3}}.Seeds()...)
	}
	assert.ElementsMatch(t, all, union)
	assert.Equal(t, []int64{11, 14, 17}, RunOptions{Start: 10, Count: 10, Shard: Shard{Index: 2, Of: 3}}.Seeds())
	for _, bad := range []string{"5/4", "0/4", "1/0", "x/2", "2", "1/2/3", "-1/2"} {
		_, err := ParseShard(bad)
		assert.Error(t, err, bad)
	}
	sh, err := ParseShard("3/4")
	require.NoError(t, err)
	assert.Equal(t, Shard{Index: 3, Of: 4}, sh)
}

// A restricted swarm only ever strikes the faults it allows.
func TestFaultRestriction(t *testing.T) {
	s := RunSeeds(RunOptions{Start: 1, Count: sweep(400), Faults: []string{faults.RateLimit, faults.CancelUser}})
	assert.Zero(t, s.Violations)
	for name, seeds := range s.FaultCoverage {
		if name != faults.RateLimit && name != faults.CancelUser {
			assert.Zero(t, seeds, name)
		}
	}
	assert.Positive(t, s.FaultCoverage[faults.RateLimit])
}

func TestScheduleFileRoundTrip(t *testing.T) {
	s := NewSchedule(77, nil)
	data, err := s.MarshalIndent()
	require.NoError(t, err)
	back, err := ParseSchedule(data)
	require.NoError(t, err)
	assert.Equal(t, s, back)
	assert.Equal(t, RunSchedule(s).Digest, RunSchedule(back).Digest, "a saved schedule replays exactly")
}

func TestParseScheduleRefusesBadFiles(t *testing.T) {
	good, err := NewSchedule(3, nil).MarshalIndent()
	require.NoError(t, err)
	cases := map[string]struct {
		data string
		says string
	}{
		"truncated":     {string(good[:len(good)/2]), "unexpected EOF"},
		"empty":         {" \n", "the file is empty"},
		"not json":      {"seed: 3", "invalid character"},
		"no version":    {`{"seed": 3}`, "no version field"},
		"newer version": {`{"version": 99, "seed": 3}`, "version 99 is not supported"},
		"unknown field": {string(good[:len(good)-2]) + `, "colour": "red"}`, `unknown field "colour"`},
		"trailing data": {string(good) + "{}", "trailing data"},
		"bad strategy":  {replaceOnce(string(good), `"strategy": "uniform"`, `"strategy": "psychic"`), `strategy "psychic"`},
		"unknown fault": {replaceOnce(string(good), `"swarm": {`, `"swarm": {"gremlins": 0.5, `), `unknown fault "gremlins"`},
		"bad policy":    {replaceOnce(string(good), `"jitterRatio": `, `"jitterRatio": 7, "x": `), "unknown field"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ParseSchedule([]byte(c.data))
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.says)
		})
	}
}

func replaceOnce(s, old, new string) string {
	i := strings.Index(s, old)
	if i < 0 {
		panic("replaceOnce: " + old + " not found")
	}
	return s[:i] + new + s[i+len(old):]
}

// BenchmarkSchedules measures whole simulated runs of the default swarm: one op is one seed
// (drawing its schedule, running it, checking every property). schedules/s = 1e9 / ns/op.
// cpu-µs/op is the process's CPU time (user + system, GC included) per seed: on a shared
// machine wall time swings with the neighbours' load, CPU time much less.
func BenchmarkSchedules(b *testing.B) {
	b.ReportAllocs()
	var virtual int64
	cpu := processCPU()
	for i := 0; b.Loop(); i++ {
		virtual += RunSeed(int64(i+1), nil, false).VirtualMs
	}
	b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(virtual)/1000/b.Elapsed().Seconds(), "sim-s/wall-s")
}

// PCT schedules are as reproducible as uniform ones, and draw from their own stream: the plan of
// a seed does not depend on its strategy.
func TestPCTSchedules(t *testing.T) {
	pct := 0
	for seed := int64(1); seed <= 200; seed++ {
		s := NewSchedule(seed, nil)
		if s.Strategy != StrategyPCT {
			continue
		}
		pct++
		require.True(t, s.Depth >= 1 && s.Depth <= pctDepthMax)
		a, b := RunSchedule(s), RunSchedule(s)
		require.Equal(t, a.Digest, b.Digest, "seed %d", seed)
		assert.Empty(t, a.Violations)
		uniform := s
		uniform.Strategy, uniform.Depth = StrategyUniform, 0
		require.NoError(t, uniform.Validate())
	}
	assert.InDelta(t, 200*pctShare, pct, 25, "about %v of seeds use PCT", pctShare)
	bad := NewSchedule(1, nil)
	bad.Strategy, bad.Depth = StrategyPCT, 0
	assert.ErrorContains(t, bad.Validate(), "pct needs a depth")
	bad.Strategy, bad.Depth = StrategyUniform, 3
	assert.ErrorContains(t, bad.Validate(), "only the pct strategy has a depth")
}

// Progress reports the failing seeds so far: here a user property that fails on every
// odd seed, so the last call counts half of them.
func TestProgressCountsFailingSeeds(t *testing.T) {
	odd := properties.Define("odd-seeds-fail", "fails on runs whose log has an odd number of events", func(r *properties.Run, report *properties.Reporter) {
		if len(r.Log)%2 == 1 {
			report.Errorf(0, -1, "odd")
		}
	})
	var mu sync.Mutex
	last := 0
	s := RunSeeds(RunOptions{Start: 1, Count: 40, Workers: 2, Agent: Agent{Properties: []properties.Property{odd}},
		Progress: func(done, total, failing int) {
			mu.Lock()
			defer mu.Unlock()
			last = max(last, failing)
		}})
	require.Positive(t, s.FailingSeedCount)
	assert.Equal(t, s.FailingSeedCount, last, "the last progress call knows every failing seed")
}

// noLeaks checks, when the test ends, that it left no goroutine behind. Idle task goroutines,
// kept for a later run, end first (sched.ReleaseIdle): a leak check cannot wait for their sweep.
func noLeaks(t *testing.T) {
	t.Helper()
	t.Cleanup(func() { sched.ReleaseIdle(); goleak.VerifyNone(t) })
}
