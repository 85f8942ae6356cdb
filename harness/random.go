package harness

import (
	entropy "crypto/rand"
	"encoding/binary"
	"math/rand"
	"sync"
)

// lockedRandom serialises an injected Random, which need not be safe for concurrent use.
type lockedRandom struct {
	mu sync.Mutex
	r  Random
}

func (l *lockedRandom) Float64() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Float64()
}

func (l *lockedRandom) Read(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Read(p)
}

// newSystemRandom is the production default: a private source seeded from the operating system,
// never the global one, so nothing else in the process shares or perturbs its sequence.
func newSystemRandom() Random {
	var seed [8]byte
	if _, err := entropy.Read(seed[:]); err != nil {
		panic("harness: no entropy for the default random source: " + err.Error())
	}
	return rand.New(rand.NewSource(int64(binary.LittleEndian.Uint64(seed[:]))))
}
