package cli

import (
	"fmt"
	"math"

	"github.com/turnsim/turnsim/sim"
)

// checkSeedRange refuses a seed range that runs past the largest seed, or a shard that selects
// no seed of it, by arithmetic alone: a range of any size up to math.MaxInt64 seeds is checked
// without listing it.
func checkSeedRange(start int64, count int, shard sim.Shard) error {
	if count < 1 {
		return fmt.Errorf("-seeds %d: need at least 1 seed", count)
	}
	if start > math.MaxInt64-int64(count-1) {
		return fmt.Errorf("-start %d with -seeds %d runs past the largest seed %d: start at most at %d", start, count, int64(math.MaxInt64), math.MaxInt64-int64(count-1))
	}
	if shardSeeds(count, shard) == 0 {
		return fmt.Errorf("-shard %s of %d seed(s) selects no seed: use fewer shards or more seeds", shard, count)
	}
	return nil
}

// shardSeeds is how many of count seeds a shard holds: seed k of the range (0-based) belongs to
// shard (k mod n)+1 of n.
func shardSeeds(count int, shard sim.Shard) int {
	if shard.Of <= 1 {
		return count
	}
	n := count / shard.Of
	if count%shard.Of > shard.Index-1 {
		n++
	}
	return n
}
