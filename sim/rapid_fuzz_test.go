package sim

import (
	"math/rand"
	"testing"

	"pgregory.net/rapid"
)

// FuzzSchedules checks the same property as TestPropertiesHoldForRapidSchedules, with the fuzzer
// choosing the bytes rapid draws from: coverage guidance steers the schedules towards harness
// code no schedule has reached yet. `go test ./sim/` runs the seed corpus; to fuzz:
//
//	go test -run X -fuzz FuzzSchedules -fuzztime 10s -fuzzminimizetime 100x ./sim/
//
// Keep -fuzzminimizetime short: the fuzzer minimises every input that reaches new coverage and
// every failing one, running a whole schedule per attempt, and with the default of a minute it
// spends most of a short run minimising (the exec count stands still meanwhile). Minimising
// bytes does little here anyway, since removing a byte shifts every later draw; a failure prints
// its schedule, and `simrun shrink FILE` minimises that.
//
// Each input is read as the little-endian 64-bit words rapid's draws consume; an input that runs
// out before the schedule is complete is skipped.
func FuzzSchedules(f *testing.F) {
	rng := rand.New(rand.NewSource(1))
	for range 8 {
		seed := make([]byte, fuzzSeedBytes)
		rng.Read(seed)
		f.Add(seed)
	}
	f.Fuzz(rapid.MakeFuzz(checkSchedule))
}

// fuzzSeedBytes is the length of each seed input: 768 words. Over 300 random inputs a schedule
// consumed 2 KB on average and 4.9 KB at most; longer seeds only slow the fuzzer's minimising.
const fuzzSeedBytes = 768 * 8
