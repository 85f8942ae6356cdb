package faults

import (
	"math/rand"

	"github.com/turnsim/turnsim/internal/splitmix"
)

// source is where a drawer's values come from: the caller's *rand.Rand (DrawSwarm, DrawPlan,
// DrawSchedule), or, when the caller gave a seed (DrawScheduleSeeded), SplitMix64 itself, which
// gives what NewRand of that seed would. A *rand.Rand reaches its source through an interface,
// two calls a value, neither inlined; the own source's methods inline into source's, one
// direct call a value: a plan draws about 600 of them. Its methods are math/rand's names, so the
// drawer asks d.rng for a value as it asked the *rand.Rand.
type source struct {
	rng *rand.Rand // nil: own
	own splitmix.Rand
}

func (s *source) Float64() float64 {
	if s.rng == nil {
		return s.own.Float64()
	}
	return s.rng.Float64()
}

func (s *source) Int63() int64 {
	if s.rng == nil {
		return s.own.Int63()
	}
	return s.rng.Int63()
}

// Int63n is rand.Int63n. From the own source its fast path is written out here, math/rand's
// algorithm (which Go 1 keeps as it is), and the rare rejection is splitmix's: a call to
// splitmix's Int63n from this one, and its signed modulo's check for -1, were about 600
// instructions a plan (between, about 58 times a plan).
func (s *source) Int63n(n int64) int64 {
	if s.rng != nil {
		return s.rng.Int63n(n)
	}
	if n <= 0 {
		panic("invalid argument to Int63n")
	}
	if n&(n-1) == 0 { // a power of two: the low bits
		return s.own.Int63() & (n - 1)
	}
	v := s.own.Int63()
	if v >= (1<<63-1)-n+1 { // only then can v lie in the last, partial run of n values
		v = s.own.Int63nRejecting(n, v)
	}
	return int64(uint64(v) % uint64(n))
}

// Intn is rand.Intn. From the own source its fast path is written out here, math/rand's
// algorithm through Int31n (which Go 1 keeps as it is), and the rare rejection is splitmix's:
// calls to splitmix's Intn and Int31n from this one were about 400 instructions a plan.
func (s *source) Intn(n int) int {
	if s.rng != nil {
		return s.rng.Intn(n)
	}
	if n <= 0 {
		panic("invalid argument to Intn")
	}
	if n > 1<<31-1 {
		return int(s.Int63n(int64(n)))
	}
	bound := uint32(n)
	if bound&(bound-1) == 0 { // a power of two: the low bits of the Int31
		return int(uint32(s.own.Int63()>>32) & (bound - 1))
	}
	v := uint32(s.own.Int63() >> 32) // Int31: in [0, 1<<31)
	if v >= 1<<31-bound {            // only then can v lie in the last, partial run of n values
		v = uint32(s.own.Int31nRejecting(int32(bound), int32(v)))
	}
	return int(v % bound)
}
