package eventjson

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// appendOptionalString writes key and s unless s is empty (omitempty).
func appendOptionalString(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return appendString(append(b, key...), s)
}

// safe marks the bytes json.Marshal writes as they are, HTML escaping being on: ASCII, not a
// control byte, a quote, a backslash or one of < > &. (Beyond ASCII, a rune of valid UTF-8 is
// written as it is too, but for U+2028 and U+2029: appendString decodes those bytes.)
var safe = func() (t [256]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// safeRun is the length of the run of safe bytes s begins with.
func safeRun(s string) int {
	for n, c := range []byte(s) {
		if !safe[c] {
			return n
		}
	}
	return len(s)
}

const hexDigits = "0123456789abcdef"

// appendString quotes s as json.Marshal does: \" \\ \b \f \n \r \t, other control bytes and
// < > & as \u00XX, U+2028 and U+2029 escaped, each byte of invalid UTF-8 as \ufffd. Runs of bytes
// written as they are go in at once.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0 // s[start:i] is written as it is, when the loop meets a byte to escape or the end
	for i := safeRun(s); i < len(s); i += safeRun(s[i:]) {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				b = append(b, s[start:i]...)
				b = append(b, `\ufffd`...)
			case r == '\u2028' || r == '\u2029':
				b = append(b, s[start:i]...)
				b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			default:
				i += size
				continue
			}
			i += size
			start = i
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '\\', '"':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendFloat formats f as json.Marshal does (ECMAScript's number to string: %f, or %e with a
// short exponent outside [1e-6, 1e21)); ok is false for NaN and the infinities, which Marshal
// refuses.
func appendFloat(b []byte, f float64) (out []byte, ok bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' { // e-07 → e-7
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}
