package harness

import (
	"math/rand/v2"
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
	checkWordScan(t, "skipPlain", skipPlain, skipPlainOneByOne)
}

// checkWordScan holds a word-at-a-time scan (the decoder's skipPlain, the encoder's skipSafe) to
// its byte-at-a-time meaning: two bytes of every value at every pair of places across two words,
// from the text's start and from the first of them, and plain texts of every length from every
// start.
func checkWordScan(t *testing.T, name string, scan, oneByOne func(string, int) int) {
	t.Helper()
	base := []byte(strings.Repeat("a", 19))
	for c1 := range 256 {
		for c2 := range 256 {
			for p1 := range 10 {
				for p2 := p1 + 1; p2 < len(base); p2 += 3 {
					b := append([]byte(nil), base...)
					b[p1], b[p2] = byte(c1), byte(c2)
					s := string(b)
					for _, start := range []int{0, p1} {
						if got, want := scan(s, start), oneByOne(s, start); got != want {
							t.Fatalf("%s(%q, %d) = %d, want %d", name, s, start, got, want)
						}
					}
				}
			}
		}
	}
	for n := range 20 {
		s := strings.Repeat("a", n)
		for start := 0; start <= n; start++ {
			if got := scan(s, start); got != n {
				t.Fatalf("%s(%q, %d) = %d, want %d", name, s, start, got, n)
			}
		}
	}
}

// int64's shortcut for the encoder's usual integers reads what int64Signed, which reads any,
// reads: the same value, the same answer and the same place to go on from.
func TestInt64ShortcutIsInt64Signed(t *testing.T) {
	literals := []string{"0", "7", "10", "01", "00", "-0", "-1", " 1", "", "-", "x", "1.5", "1e3", "1E3", "0.0",
		"0e1", "999999999999999999", "1000000000000000000", "9223372036854775807", "9223372036854775808",
		"123456789012345678", "0123"}
	for _, literal := range literals {
		for _, after := range []string{"", ",", "}", " ", "x", ".", "e", "E", "5"} {
			text := literal + after
			fast, slow := eventParser{b: text}, eventParser{b: text}
			nFast, okFast := fast.int64()
			nSlow, okSlow := slow.int64Signed()
			if nFast != nSlow || okFast != okSlow || okFast && fast.i != slow.i {
				t.Fatalf("%q: int64 gives (%d, %v) at %d, int64Signed (%d, %v) at %d", text, nFast, okFast, fast.i, nSlow, okSlow, slow.i)
			}
		}
	}
}

// unquoteASCII, the shortcut for strings of ASCII bytes only, unquotes as unquoteJSON does: any
// string the scanner accepts, built from plain bytes and every escape (surrogate halves alone,
// paired, in the wrong order, at the end).
func TestUnquoteASCIIIsUnquoteJSON(t *testing.T) {
	pieces := []string{"a", "{", " ", `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u0041`, `\u00e9`, `\u2028`,
		`\uffff`, `\ud83d`, `\ude00`, `\uD83D\uDE00`, `\ud800\u0041`, `\udbff\udfff`, `\u0000`}
	random := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var text strings.Builder
		for range random.IntN(12) {
			text.WriteString(pieces[random.IntN(len(pieces))])
		}
		s := text.String()
		p := eventParser{b: `"` + s + `"`}
		if _, ok := p.string(); !ok {
			t.Fatalf("the scanner refuses %q", s)
		}
		if got, want := unquoteASCII(s, make([]byte, len(s))), unquoteJSON(s); got != want {
			t.Fatalf("unquoteASCII(%q) = %q, want %q", s, got, want)
		}
	}
}
