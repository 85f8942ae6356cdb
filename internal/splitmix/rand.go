package splitmix

import "math/rand"

// splitMix64 is SplitMix64 (Steele, Lea and Flood, OOPSLA 2014, with Vigna's constants): one
// word of state, seeded by storing the seed. It replaces math/rand's default source for every
// per-schedule stream because that source seeds hundreds of words of state on creation, and a
// schedule creates several streams. SplitMix64 passes BigCrush, which is more than drawing plans
// and picking tasks asks of it; it is not for cryptography.
type splitMix64 struct {
	state uint64
}

// Uint64 advances the state by the golden-ratio increment and mixes it with SplitMix64's finaliser.
func (s *splitMix64) Uint64() uint64 {
	s.state += 0x9e3779b97f4a7c15
	z := s.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Int63 is the top 63 bits of Uint64, as math/rand.Source asks.
func (s *splitMix64) Int63() int64 { return int64(s.Uint64() >> 1) }

// Seed restarts the stream from seed.
func (s *splitMix64) Seed(seed int64) { s.state = uint64(seed) }

// NewRand returns a random source for one stream of one schedule: math/rand's API (which
// faults.DrawPlan uses) on a SplitMix64 source. The same seed gives the same sequence on every
// platform and Go version: math/rand's methods over Int63 and Uint64 are frozen by the Go 1
// compatibility promise.
func NewRand(seed int64) *rand.Rand { return rand.New(&splitMix64{state: uint64(seed)}) }

// Derive mixes a seed and a stream number with SplitMix64's finaliser: the seed of one consumer's
// stream (the plan, the scheduler, a herd's provider), so that drawing more in one never shifts
// another.
func Derive(seed int64, stream uint64) int64 {
	z := uint64(seed) + (stream+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return int64(z ^ (z >> 31))
}
