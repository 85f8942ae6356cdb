package faults

import (
	"strconv"
	"testing"
)

// sendText is its prefix and the number, from the table and past it.
func TestSendTextIsPrefixAndNumber(t *testing.T) {
	for kind, prefix := range sendPrefixes {
		for n := -1; n <= sendTextsMade+1; n++ {
			if got, want := sendText(sendKind(kind), n), prefix+strconv.Itoa(n); got != want {
				t.Errorf("sendText(%d, %d) = %q, want %q", kind, n, got, want)
			}
		}
	}
}
