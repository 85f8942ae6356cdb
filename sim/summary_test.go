package sim

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/properties"
)

// Selected and SeedAt agree with listing the range seed by seed, for every shard.
func TestSelectedMatchesTheListedRange(t *testing.T) {
	for count := 0; count <= 12; count++ {
		for of := 1; of <= 5; of++ {
			for index := 1; index <= of; index++ {
				o := RunOptions{Start: 100, Count: count, Shard: Shard{Index: index, Of: of}}
				var want []int64
				for k := range count {
					if k%of == index-1 {
						want = append(want, 100+int64(k))
					}
				}
				require.Equal(t, len(want), o.Selected(), "%d seeds, shard %d/%d", count, index, of)
				for i, seed := range want {
					assert.Equal(t, seed, o.SeedAt(i))
				}
			}
		}
	}
}

// The largest ranges are counted, not listed: nothing is allocated up front.
func TestTheWholeInt64RangeIsSelectedWithoutListing(t *testing.T) {
	o := RunOptions{Start: 0, Count: math.MaxInt64}
	allocs := testing.AllocsPerRun(10, func() { _ = o.Selected() + int(o.SeedAt(o.Selected()-1)%2) })
	assert.Zero(t, allocs)
	assert.Equal(t, int64(math.MaxInt64-1), o.SeedAt(o.Selected()-1))
	sharded := RunOptions{Start: 0, Count: math.MaxInt64, Shard: Shard{Index: 3, Of: 4}}
	assert.Equal(t, math.MaxInt64/4+1, sharded.Selected())
}

// The digests of the shards of a range add up to the digest of the whole range: what a merge of
// sharded summaries relies on.
func TestShardDigestsAddUpToTheWholeRange(t *testing.T) {
	whole := RunSeeds(RunOptions{Start: 40, Count: 30})
	var parts []string
	seeds := 0
	for i := 1; i <= 3; i++ {
		s := RunSeeds(RunOptions{Start: 40, Count: 30, Shard: Shard{Index: i, Of: 3}, Workers: i})
		parts = append(parts, s.Digest)
		seeds += s.Seeds
	}
	sum, err := AddDigests(parts...)
	require.NoError(t, err)
	assert.Equal(t, whole.Digest, sum)
	assert.Equal(t, whole.Seeds, seeds)
	assert.NotEqual(t, parts[0], parts[1])
	empty, err := AddDigests()
	require.NoError(t, err)
	assert.Equal(t, "0000000000000000000000000000000000000000000000000000000000000000", empty)
	_, err = AddDigests("abc")
	assert.ErrorContains(t, err, "not 64 hex digits")
}

// The digest sum carries across limbs and wraps at 2^256.
func TestDigestSumCarries(t *testing.T) {
	var s digestSum
	var ones, one [32]byte
	for i := range ones {
		ones[i] = 0xff
	}
	one[31] = 1
	s.add(ones)
	s.add(one)
	assert.Equal(t, [32]byte{}, s.bytes(), "2^256-1 + 1 wraps to 0")
	var high [32]byte
	high[23] = 0xff // the top of the third limb
	s.add(high)
	s.add(high)
	var want [32]byte
	want[22], want[23] = 1, 0xfe
	assert.Equal(t, want, s.bytes())
}

// A fold keeps the lowest failing seeds up to its bound, counts every one, and merges to the same
// summary whatever the order the seeds came in.
func TestFoldKeepsTheLowestFailuresAndIsOrderIndependent(t *testing.T) {
	result := func(seed int64) SeedResult {
		r := SeedResult{Seed: seed, VirtualMs: seed, Handoffs: int(seed), Exercised: []string{"crash"}, Outcomes: []string{"completed"}}
		if seed%2 == 0 {
			r.Violations = []properties.Violation{{Property: "p", Message: "m"}, {Property: "p", Message: "again"}}
		}
		r.Digest[0] = byte(seed)
		return r
	}
	n := int64(2*FailuresKept + 10)
	forward, backward, split, other := newFold(), newFold(), newFold(), newFold()
	for seed := int64(1); seed <= n; seed++ {
		forward.add(result(seed))
		backward.add(result(n + 1 - seed))
		if seed%3 == 0 {
			other.add(result(seed))
		} else {
			split.add(result(seed))
		}
	}
	split.merge(other)
	want := forward.summary()
	assert.Equal(t, want, backward.summary())
	assert.Equal(t, want, split.summary())
	assert.Len(t, want.FailingSeeds, FailuresKept)
	assert.Equal(t, int64(2), want.FailingSeeds[0])
	assert.Equal(t, int64(2*FailuresKept), want.FailingSeeds[FailuresKept-1])
	assert.Equal(t, int(n/2), want.FailingSeedCount)
	assert.Equal(t, int(n/2), want.Violations, "one violation per (seed, property)")
	assert.Equal(t, int(n), want.FaultCoverage["crash"])
	assert.Equal(t, float64(n*(n+1)/2)/1000, want.SimSeconds)
}
