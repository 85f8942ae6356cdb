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

func (s *source) Int63n(n int64) int64 {
	if s.rng == nil {
		return s.own.Int63n(n)
	}
	return s.rng.Int63n(n)
}

func (s *source) Intn(n int) int {
	if s.rng == nil {
		return s.own.Intn(n)
	}
	return s.rng.Intn(n)
}
