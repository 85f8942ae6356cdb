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
	if (sim.RunOptions{Count: count, Shard: shard}).Selected() == 0 {
		return fmt.Errorf("-shard %s of %d seed(s) selects no seed: use fewer shards or more seeds", shard, count)
	}
	return nil
}
