package splitmix

import "testing"

// Rand gives what NewRand's *rand.Rand gives, call for call, for every method it has and for
// arguments that take each of math/rand's paths: a power of two (masked), a bound whose draws
// are rejected often (just past a power of two, so that almost half the values are rejected),
// Intn past 31 bits.
func TestRandIsMathRand(t *testing.T) {
	bounds := []int64{1, 2, 3, 5, 7, 20, 64, 1000, 1<<30 + 1, 1<<31 - 1, 1 << 31, 1<<31 + 1, 1<<62 + 1, 1<<63 - 1}
	for seed := range int64(200) {
		mine, theirs := New(seed), NewRand(seed)
		for i := range 400 {
			n := bounds[(i/6)%len(bounds)] // each kind of call meets every bound
			var got, want int64
			switch i % 5 {
			case 0:
				got, want = mine.Int63(), theirs.Int63()
			case 1:
				if f, g := mine.Float64(), theirs.Float64(); f != g {
					t.Fatalf("seed %d, call %d: Float64 = %v, math/rand %v", seed, i, f, g)
				}
			case 2:
				got, want = mine.Int63n(n), theirs.Int63n(n)
			case 3:
				if n <= 1<<31-1 {
					got, want = int64(mine.Int31n(int32(n))), int64(theirs.Int31n(int32(n)))
				}
			case 4:
				got, want = int64(mine.Intn(int(n))), int64(theirs.Intn(int(n)))
			}
			if got != want {
				t.Fatalf("seed %d, call %d (kind %d, n %d): %d, math/rand %d", seed, i, i%5, n, got, want)
			}
		}
	}
}

// Random reads the bytes NewRand's *rand.Rand reads, in reads of any length, with floats drawn
// in between (which math/rand does not count against the bytes left of the last value).
func TestRandomIsMathRand(t *testing.T) {
	for seed := range int64(100) {
		mine, theirs := &Random{Rand: New(seed)}, NewRand(seed)
		for i := range 60 {
			if i%4 == 3 {
				if f, g := mine.Float64(), theirs.Float64(); f != g {
					t.Fatalf("seed %d, call %d: Float64 = %v, math/rand %v", seed, i, f, g)
				}
				continue
			}
			got, want := make([]byte, (i*5+int(seed))%23), make([]byte, (i*5+int(seed))%23)
			n, err := mine.Read(got)
			if n != len(got) || err != nil {
				t.Fatalf("Read = %d, %v; want %d, nil", n, err, len(got))
			}
			theirs.Read(want)
			if string(got) != string(want) {
				t.Fatalf("seed %d, call %d: Read %x, math/rand %x", seed, i, got, want)
			}
		}
	}
}

// Both panic on a bound math/rand refuses.
func TestRandRefusesWhatMathRandRefuses(t *testing.T) {
	r := New(1)
	for name, f := range map[string]func(){
		"Int63n": func() { r.Int63n(0) }, "Int31n": func() { r.Int31n(-1) }, "Intn": func() { r.Intn(0) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s accepted a bound math/rand refuses", name)
				}
			}()
			f()
		}()
	}
}
