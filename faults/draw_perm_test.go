package faults

import (
	"math/rand"
	"testing"

	"github.com/turnsim/turnsim/internal/splitmix"
)

// The drawer's perm is rand.Perm: the same permutations from the same draws, so plans do not
// change with it.
func TestPermIsRandPerm(t *testing.T) {
	mine, theirs := rand.New(rand.NewSource(7)), rand.New(rand.NewSource(7))
	d := &drawer{rng: source{rng: mine}}
	for n := range 120 {
		got, want := d.perm(n%60), theirs.Perm(n%60)
		if len(got) != len(want) {
			t.Fatalf("perm(%d): %d elements, rand.Perm %d", n%60, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("perm(%d) = %v, rand.Perm %v", n%60, got, want)
			}
		}
	}
	if mine.Int63() != theirs.Int63() {
		t.Fatal("perm drew a different number of values from rng")
	}
}

// scriptedSource yields its values in turn, again and again: draws placed where Int31n rejects.
type scriptedSource struct {
	values []int64
	next   int
}

func (s *scriptedSource) Int63() int64 {
	v := s.values[s.next%len(s.values)]
	s.next++
	return v
}

func (s *scriptedSource) Seed(int64) {}

// perm rejects the draws rand.Perm rejects (those in the last, partial run of a bound's values)
// and draws again, as many times, for every bound up to 59: a draw in the top values of [0, 1<<31)
// (intnRejecting), rejected or kept, and a draw below them.
func TestPermRejectsAsRandPerm(t *testing.T) {
	top := int64(1<<31-1) << 32 // Int31: 1<<31 - 1, past every bound that is not a power of two
	values := []int64{top, 5 << 32, top, top, 1 << 40, top - 1<<32, 7 << 32}
	for n := range 60 {
		mine, theirs := &scriptedSource{values: values}, &scriptedSource{values: values}
		d := &drawer{rng: source{rng: rand.New(mine)}}
		got, want := d.perm(n), rand.New(theirs).Perm(n)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("perm(%d) = %v, rand.Perm %v", n, got, want)
			}
		}
		if mine.next != theirs.next {
			t.Fatalf("perm(%d) drew %d values, rand.Perm %d", n, mine.next, theirs.next)
		}
	}
}

// perm from the drawer's own SplitMix64 is rand.Perm from NewRand of the same seed, its
// rejections included: the seeds are chosen so that a step's draw lies past its bound (the
// third step's, for a bound of 3, whose last two values are rejected), found by running
// SplitMix64's finaliser backwards.
func TestOwnPermIsRandPerm(t *testing.T) {
	const golden = 0x9e3779b97f4a7c15
	seeds := []int64{0, 1, 7, 1 << 40}
	for step, bound := range []uint64{3, 5, 7, 12, 21, 43} {
		// the largest draw there is: its Int31, 1<<31 - 1, lies past every bound that is not a
		// power of two
		seeds = append(seeds, int64(unmix(^uint64(0)-uint64(step))-bound*golden))
	}
	for _, seed := range seeds {
		for n := range 50 {
			d := &drawer{rng: source{own: splitmix.New(seed)}}
			theirs := NewRand(seed)
			got, want := d.perm(n), theirs.Perm(n)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("seed %d: perm(%d) = %v, rand.Perm %v", seed, n, got, want)
				}
			}
			if d.rng.Int63() != theirs.Int63() {
				t.Fatalf("seed %d: perm(%d) drew a different number of values from rand.Perm", seed, n)
			}
		}
	}
}

// unmix inverts SplitMix64's finaliser: the state increment whose output is z.
func unmix(z uint64) uint64 {
	z = unshift(z, 31)
	z *= inverse(0x94d049bb133111eb)
	z = unshift(z, 27)
	z *= inverse(0xbf58476d1ce4e5b9)
	return unshift(z, 30)
}

// unshift inverts z ^ z>>s.
func unshift(z uint64, s uint) uint64 {
	x := z
	for range 64 / s {
		x = z ^ x>>s
	}
	return x
}

// inverse is a's multiplicative inverse modulo 1<<64 (a odd), by Newton's iteration.
func inverse(a uint64) uint64 {
	x := a
	for range 5 {
		x *= 2 - a*x
	}
	return x
}

// The own source's Int63n and Intn are rand's from NewRand of the same seed, their rejections
// included: the seeds are chosen so that the first draw is the largest there is, which lies past
// the last whole run of every bound that is not a power of two, or next to it.
func TestOwnInt63nAndIntnAreRands(t *testing.T) {
	const golden = 0x9e3779b97f4a7c15
	seeds := []int64{0, 1, 7, 1 << 40}
	for _, top := range []uint64{^uint64(0), ^uint64(0) - 1, ^uint64(0) - 5} {
		seeds = append(seeds, int64(unmix(top)-golden))
	}
	bounds := []int64{1, 2, 3, 5, 7, 8, 20, 1000, 55_001, 1<<30 + 1, 1<<31 - 1, 1 << 31, 1<<31 + 1, 1<<62 + 1, 1<<63 - 1, 1 << 62}
	for _, seed := range seeds {
		for _, n := range bounds {
			mine, theirs := source{own: splitmix.New(seed)}, NewRand(seed)
			for i := range 5 {
				if got, want := mine.Int63n(n), theirs.Int63n(n); got != want {
					t.Fatalf("seed %d: draw %d of Int63n(%d) = %d, rand.Int63n %d", seed, i, n, got, want)
				}
				if got, want := mine.Intn(int(n)), theirs.Intn(int(n)); got != want {
					t.Fatalf("seed %d: draw %d of Intn(%d) = %d, rand.Intn %d", seed, i, n, got, want)
				}
			}
			if mine.Int63() != theirs.Int63() {
				t.Fatalf("seed %d: Int63n(%d) drew a different number of values from rand.Int63n", seed, n)
			}
		}
	}
}
