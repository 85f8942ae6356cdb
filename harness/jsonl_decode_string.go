package harness

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// The scanner's strings, read with encoding/json's grammar and meaning.

// skipPlain is the index of the first byte from i on that is not plainByte (len(b) if none). It
// reads eight bytes at a time, a word loaded at once, and marks in the word the high bit of each
// byte that is not plain (by subtractions that borrow from the byte above only at a byte that is
// marked, so the lowest mark is exact): a string's bytes cost a few instructions a word instead
// of a table load and compare each. The last bytes of the text, fewer than eight, go one by one.
func skipPlain(b string, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if m := notPlainMarks(wordAt(b, i)); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(b) && plainByte[b[i]] {
		i++
	}
	return i
}

// wordAt is the eight bytes of s from i on as a little-endian word, which the compiler loads at
// once.
func wordAt(s string, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// notPlainMarks sets the high bit of each byte of w (little-endian) that is not plain: below
// 0x20 (w-0x20 wraps to the high bit), a quote or a backslash (w^c is zero, and zero-1 wraps), or
// non-ASCII (its own high bit, which also covers the bytes the subtractions alone would mark
// wrongly). A byte above a marked one may be marked wrongly too, by the borrow; below it, never.
func notPlainMarks(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	return ((w - ones*0x20) | ((w ^ ones*'"') - ones) | ((w ^ ones*'\\') - ones) | w) & highs
}

// plainByte marks the bytes a string holds as they are: ASCII, neither a control byte nor a
// quote nor a backslash. A string of only these is its own value. skipPlain's word test is this
// table's meaning eight bytes at once; the table itself checks the last bytes of a text.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (p *eventParser) stringInto(out *string) bool {
	s, ok := p.string()
	*out = s
	return ok
}

// string reads a JSON string with encoding/json's rules: the scanner's grammar (no control
// bytes; escapes \" \\ \/ \b \f \n \r \t \uXXXX only), then its unquoting (a surrogate pair
// combined, a lone surrogate or invalid UTF-8 replaced by U+FFFD). A string of plain bytes, as
// nearly all are, is its own value: a substring of the line, found by one scan.
func (p *eventParser) string() (string, bool) {
	b, i := p.b, p.i
	if i >= len(b) || b[i] != '"' {
		if i = skipSpace(b, i); i >= len(b) || b[i] != '"' {
			return "", false
		}
	}
	start := i + 1
	i = skipPlain(b, start)
	if i < len(b) && b[i] == '"' {
		p.i = i + 1
		return b[start:i], true
	}
	if i < len(b) && b[i] == '\\' {
		if s, ok := p.stringUnquoting(start, i); ok {
			return s, true
		}
	}
	return p.stringRest(start, i)
}

// stringRest reads on from i, where the scan of plain bytes stopped, a string that began at
// start: it checks each escape, and skips each run of plain bytes after it as string did.
func (p *eventParser) stringRest(start, i int) (string, bool) {
	b := p.b
	escaped, ascii := false, true
	for {
		if i >= len(b) {
			return "", false
		}
		switch c := b[i]; {
		case c == '"':
			p.i = i + 1
			raw := b[start:i]
			switch {
			case !escaped && utf8.ValidString(raw): // only UTF-8 beyond plain bytes: its own value
				return raw, true
			case ascii:
				return unquoteASCII(raw, p.text(len(raw))), true
			}
			return unquoteJSON(raw), true
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return "", false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || hex4(b[i+2:i+6]) < 0 {
					return "", false
				}
				i += 6
			default:
				return "", false
			}
		case c < 0x20:
			return "", false
		default: // a byte of a UTF-8 sequence, valid or not
			ascii = false
			i++
		}
		i = skipPlain(b, i)
	}
}

// hex4 is the value of four hex digits, or -1.
func hex4(b string) rune {
	var r rune
	for i := range 4 {
		c := b[i]
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// unquoteASCII is unquoteJSON of the inside of a string of ASCII bytes only, for those
// stringUnquoting leaves to it (one with a \u escape; without a decoder, one whose plain bytes
// run past 256 before an escape): its value is never longer than its text
// (an escape of two bytes gives one, of six at most three, of twelve four), so it is written into
// a buffer of that length, which becomes the string without a copy. The bytes up to the next
// backslash go eight at a time: a word is stored whole wherever its backslash is (the bytes from
// there on are written over next), there being room for it since the value so far is no longer
// than the text read. out is the buffer, of len(s) bytes (eventParser.text).
func unquoteASCII(s string, out []byte) string {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	n := 0
	for r := 0; r < len(s); {
		if r+8 <= len(s) {
			w := wordAt(s, r)
			binary.LittleEndian.PutUint64(out[n:], w)
			m := ((w ^ ones*'\\') - ones) & highs // a backslash's byte is zero, and zero-1 wraps
			if m == 0 {
				r, n = r+8, n+8
				continue
			}
			k := bits.TrailingZeros64(m) / 8
			r, n = r+k, n+k
		}
		c := s[r]
		r++
		if c == '\\' {
			switch c = s[r]; c {
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'u':
				r, n = unquoteU(s, r, out, n)
				continue
			} // and " \\ / stand for themselves
			r++
		}
		out[n] = c
		n++
	}
	return unsafe.String(unsafe.SliceData(out), n)
}

// unquoteU writes into out at n the rune of the escape \uXXXX whose u is at s[r] (decodeU), and
// returns the places after the escape and after the rune.
func unquoteU(s string, r int, out []byte, n int) (int, int) {
	rr, r := decodeU(s, r)
	return r, n + utf8.EncodeRune(out[n:], rr)
}

// decodeU is the rune of the escape \uXXXX whose u is at s[r], with the next escape when the two
// are a surrogate pair, U+FFFD for a surrogate alone, as encoding/json reads them; and the place
// after the escape (or the pair).
func decodeU(s string, r int) (rune, int) {
	rr := hex4(s[r+1:])
	r += 5
	if utf16.IsSurrogate(rr) {
		dec := utf8.RuneError
		if r+6 <= len(s) && s[r] == '\\' && s[r+1] == 'u' {
			dec = utf16.DecodeRune(rr, hex4(s[r+2:]))
		}
		if dec != utf8.RuneError {
			r += 6
		}
		rr = dec
	}
	return rr, r
}

// unquoteJSON unquotes the inside of a string the scanner accepted, as encoding/json does. Runs
// of plain bytes are copied whole, and the result is the buffer itself, never changed after, as
// a string (one allocation, not a second for a copy).
func unquoteJSON(s string) string {
	out := make([]byte, 0, len(s)+utf8.UTFMax)
	for r := 0; r < len(s); {
		if run := skipPlain(s, r); run > r {
			out = append(out, s[r:run]...)
			if r = run; r == len(s) {
				break
			}
		}
		c := s[r]
		switch {
		case c == '\\':
			r++
			switch s[r] {
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				var rr rune
				rr, r = decodeU(s, r)
				out = utf8.AppendRune(out, rr)
				continue
			default: // " \ /
				out = append(out, s[r])
			}
			r++
		default: // not plain and not a backslash: a byte of a UTF-8 sequence, valid or not
			rr, size := utf8.DecodeRuneInString(s[r:])
			out = utf8.AppendRune(out, rr) // RuneError for invalid bytes, one at a time
			r += size
		}
	}
	return unsafe.String(unsafe.SliceData(out), len(out))
}
