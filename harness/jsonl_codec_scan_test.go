package harness

import (
	"strings"
	"testing"
)

// skipPlainOneByOne is skipPlain's meaning, a byte at a time: the oracle for its word-at-a-time
// scan.
func skipPlainOneByOne(b string, i int) int {
	for i < len(b) && plainByte[b[i]] {
		i++
	}
	return i
}

// The word-at-a-time scan stops where the byte-at-a-time one does, whatever the two bytes that
// are not plain (every value, at every pair of places across two words: the borrow of one must
// not hide the other) and wherever the scan starts and the text ends.
func TestSkipPlainStopsAtTheFirstByteNotPlain(t *testing.T) {
	base := []byte(strings.Repeat("a", 19))
	for c1 := range 256 {
		for c2 := range 256 {
			for p1 := range 10 {
				for p2 := p1 + 1; p2 < len(base); p2 += 3 {
					b := append([]byte(nil), base...)
					b[p1], b[p2] = byte(c1), byte(c2)
					s := string(b)
					for _, start := range []int{0, p1} {
						if got, want := skipPlain(s, start), skipPlainOneByOne(s, start); got != want {
							t.Fatalf("skipPlain(%q, %d) = %d, want %d", s, start, got, want)
						}
					}
				}
			}
		}
	}
	for n := range 20 {
		s := strings.Repeat("a", n)
		for start := 0; start <= n; start++ {
			if got := skipPlain(s, start); got != n {
				t.Fatalf("skipPlain(%q, %d) = %d, want %d", s, start, got, n)
			}
		}
	}
}
