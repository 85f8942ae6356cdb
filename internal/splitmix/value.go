package splitmix

// Rand is NewRand's *rand.Rand as a plain value: the methods the scheduler and the simulated
// harness's Random use, each math/rand's algorithm over the same SplitMix64 source, so that a
// Rand and NewRand of one seed give the same numbers from the same calls (TestRandIsMathRand). A
// Rand lives inside its owner (the scheduler, a world), with no source behind an interface.
type Rand struct {
	src splitMix64
}

// New is a Rand seeded with seed: NewRand(seed)'s sequence.
func New(seed int64) Rand { return Rand{src: splitMix64{state: uint64(seed)}} }

// Int63 is (*rand.Rand).Int63: the top 63 bits of the source's next value.
func (r *Rand) Int63() int64 { return r.src.Int63() }

// Float64 is (*rand.Rand).Float64: Int63 scaled to [0, 1), drawn again in the rare case that
// the division rounds up to 1.
func (r *Rand) Float64() float64 {
	for {
		if f := float64(r.Int63()) / (1 << 63); f != 1 {
			return f
		}
	}
}

// Int63n is (*rand.Rand).Int63n: a mask for a power of two; otherwise Int63 modulo n, drawn
// again while the draw lies in the last, partial run of n values. It panics if n <= 0.
//
// That run is shorter than n, so a draw below 1<<63 - n lies before it: only a draw in the top
// n values works out where the run starts (int63nRejecting).
func (r *Rand) Int63n(n int64) int64 {
	if n <= 0 {
		panic("invalid argument to Int63n")
	}
	if n&(n-1) == 0 {
		return r.Int63() & (n - 1)
	}
	v := r.Int63()
	if v >= (1<<63-1)-n+1 {
		v = r.int63nRejecting(n, v)
	}
	return v % n
}

// int63nRejecting finishes Int63n(n) from a first draw v in the top n values: it draws again
// while the draw lies in the last, partial run of n values, as math/rand does.
func (r *Rand) int63nRejecting(n, v int64) int64 {
	highest := int64((1 << 63) - 1 - (1<<63)%uint64(n))
	for v > highest {
		v = r.Int63()
	}
	return v
}

// Int31n is (*rand.Rand).Int31n: Int63n's algorithm on Int31, the top 31 bits of Int63, with
// its shortcut (a draw below 1<<31 - n is kept without working out the partial run). It panics
// if n <= 0.
func (r *Rand) Int31n(n int32) int32 {
	if n <= 0 {
		panic("invalid argument to Int31n")
	}
	if n&(n-1) == 0 {
		return int32(r.Int63()>>32) & (n - 1)
	}
	v := int32(r.Int63() >> 32)
	if v >= (1<<31-1)-n+1 {
		v = r.int31nRejecting(n, v)
	}
	return v % n
}

// int31nRejecting is int63nRejecting for Int31n.
func (r *Rand) int31nRejecting(n, v int32) int32 {
	highest := int32((1 << 31) - 1 - (1<<31)%uint32(n))
	for v > highest {
		v = int32(r.Int63() >> 32)
	}
	return v
}

// Intn is (*rand.Rand).Intn: Int31n for an n that fits in 31 bits, Int63n past it. It panics
// if n <= 0.
func (r *Rand) Intn(n int) int {
	if n <= 0 {
		panic("invalid argument to Intn")
	}
	if n <= 1<<31-1 {
		return int(r.Int31n(int32(n)))
	}
	return int(r.Int63n(int64(n)))
}

// Random is a Rand that also reads bytes as (*rand.Rand).Read does: what the harness asks of
// its injected source (floats for jitter, bytes for UUIDs).
type Random struct {
	Rand
	// readVal holds the bytes of the last Int63 that Read has not given out yet, readPos how
	// many: math/rand's own bookkeeping, so that reads split anywhere give the same bytes.
	readVal int64
	readPos int8
}

// Read fills p as (*rand.Rand).Read does: seven bytes of each Int63, low byte first, the rest
// of one kept for the next Read. It always returns len(p) and a nil error.
func (r *Random) Read(p []byte) (n int, err error) {
	pos, val := r.readPos, r.readVal
	for n = range p {
		if pos == 0 {
			val, pos = r.Int63(), 7
		}
		p[n] = byte(val)
		val >>= 8
		pos--
	}
	r.readPos, r.readVal = pos, val
	return len(p), nil
}
