package harness

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// skipSafeOneByOne is skipSafe's meaning, a byte at a time: the oracle for its word-at-a-time
// scan.
func skipSafeOneByOne(s string, i int) int {
	for i < len(s) && s[i] < utf8.RuneSelf && jsonSafe[s[i]] {
		i++
	}
	return i
}

// The encoder's word-at-a-time scan stops where the byte-at-a-time one does, whatever the two
// bytes that are not safe (every value, at every pair of places across two words: the borrow of
// one must not hide the other) and wherever the scan starts and the text ends.
func TestSkipSafeStopsAtTheFirstByteToEscape(t *testing.T) {
	base := []byte(strings.Repeat("a", 19))
	for c1 := range 256 {
		for c2 := range 256 {
			for p1 := range 10 {
				for p2 := p1 + 1; p2 < len(base); p2 += 3 {
					b := append([]byte(nil), base...)
					b[p1], b[p2] = byte(c1), byte(c2)
					s := string(b)
					for _, start := range []int{0, p1} {
						if got, want := skipSafe(s, start), skipSafeOneByOne(s, start); got != want {
							t.Fatalf("skipSafe(%q, %d) = %d, want %d", s, start, got, want)
						}
					}
				}
			}
		}
	}
	for n := range 20 {
		s := strings.Repeat("a", n)
		for start := 0; start <= n; start++ {
			require.Equal(t, n, skipSafe(s, start), "skipSafe(%q, %d)", s, start)
		}
	}
}

// Every byte value, alone and inside a long string on either side of a word's edge, is quoted as
// Marshal quotes it: the word scan hands each byte it stops at to the same escapes as before.
func TestAppendJSONStringMatchesMarshalForEveryByte(t *testing.T) {
	for c := range 256 {
		for _, s := range []string{
			string(rune(c)), string([]byte{byte(c)}),
			strings.Repeat("x", 7) + string([]byte{byte(c)}) + strings.Repeat("y", 9),
			strings.Repeat("x", 8) + string([]byte{byte(c)}) + "\u2028<&>" + string([]byte{byte(c)}),
		} {
			want, err := json.Marshal(s)
			require.NoError(t, err)
			require.Equal(t, string(want), string(appendJSONString(nil, s)), "quoting %q", s)
		}
	}
}
