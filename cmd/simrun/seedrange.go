package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

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

// checkCorpusDir refuses, before a run, a corpus folder that could not be written to when a
// failure is kept: a path that is a file, or whose nearest existing ancestor is not a folder or
// cannot be written in.
// ("" keeps nothing.) The folder itself is created only when a failure is saved.
func checkCorpusDir(dir string) error {
	if dir == "" {
		return nil
	}
	for at := filepath.Clean(dir); ; at = filepath.Dir(at) {
		info, err := os.Stat(at)
		switch {
		case err == nil && info.IsDir():
			return probeWritable(at, dir)
		case err == nil:
			return fmt.Errorf("cannot save failures in %s: %s is a file, not a folder", dir, at)
		case filepath.Dir(at) == at:
			return fmt.Errorf("cannot save failures in %s: no part of it exists", dir)
		}
	}
}

// probeWritable creates and removes a hidden empty file in folder at, the one sure test that the
// folder takes new files (permissions, read-only mounts), and names dir if it does not.
func probeWritable(at, dir string) error {
	probe, err := os.CreateTemp(at, ".simrun-probe-*")
	if err != nil {
		return fmt.Errorf("cannot save failures in %s: %s cannot be written in: %v", dir, at, pathErrorText(err))
	}
	probe.Close()
	return os.Remove(probe.Name())
}
