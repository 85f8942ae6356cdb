package faults

import (
	"math/rand"
	"testing"
)

// The drawer's perm is rand.Perm: the same permutations from the same draws, so plans do not
// change with it.
func TestPermIsRandPerm(t *testing.T) {
	mine, theirs := rand.New(rand.NewSource(7)), rand.New(rand.NewSource(7))
	d := &drawer{rng: mine}
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
		d := &drawer{rng: rand.New(mine)}
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
