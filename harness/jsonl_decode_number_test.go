package harness

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// int64 reads an integer of any length followed by any byte (the word read at once, the loop
// after eight digits, int64Signed for the rest) as encoding/json reads it from the same text,
// and refuses what encoding/json does not read as an int64. (A literal with a leading zero it may
// read in part, "0" of "07": the next byte then ends the fast path.)
func TestInt64IsEncodingJSON(t *testing.T) {
	var literals []string
	for _, digits := range []string{"0", "7", "10", "99", "123", "4567", "90210", "100000", "8675309", "12345678", "987654321",
		"999999999999999999", "9223372036854775807", "9223372036854775808"} {
		literals = append(literals, digits, "-"+digits, "0"+digits, " "+digits, digits+".5", digits+"e2", digits+"E+1")
	}
	for _, literal := range literals {
		for _, tail := range []string{"", "}", ",\"type\":\"x\"}", "]}}}}}}}}", ":", "/"} {
			text := literal + tail
			dec := json.NewDecoder(strings.NewReader(text))
			var want int64
			wantErr := dec.Decode(&want)
			p := eventParser{b: text}
			got, ok := p.int64()
			if ok && wantErr == nil && (got != want || int64(p.i) != dec.InputOffset()) {
				t.Errorf("int64 of %q: %d to %d; encoding/json: %d to %d", text, got, p.i, want, dec.InputOffset())
			}
			var typeErr *json.UnmarshalTypeError // a fraction, an exponent, out of range
			if ok && errors.As(wantErr, &typeErr) {
				t.Errorf("int64 of %q: %d, encoding/json refuses it: %v", text, got, wantErr)
			}
		}
	}
}
