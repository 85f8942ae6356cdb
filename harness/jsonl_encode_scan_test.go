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
	checkWordScan(t, "skipSafe", skipSafe, skipSafeOneByOne)
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
