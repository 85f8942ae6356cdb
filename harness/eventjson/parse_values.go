package eventjson

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The parser's strings, numbers and booleans, read with encoding/json's grammar and meaning.

// string reads a string into out. A string of plain bytes, as nearly all are, is its own value:
// a part of the line, not a copy. Any other is unquoted.
func (p *parser) string(out *string) bool {
	if !p.literal(`"`) {
		return false
	}
	text := p.s[p.i:]
	if n := plainRun(text); n < len(text) && text[n] == '"' {
		*out = text[:n]
		p.i += n + 1
		return true
	}
	value, next, ok := unquote(p.s, p.i)
	*out, p.i = value, next
	return ok
}

// plain marks the bytes that stand for themselves in a JSON string: ASCII, not a control byte, a
// quote or a backslash.
var plain = func() (t [256]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plainRun is the length of the run of plain bytes that s begins with.
func plainRun(s string) int {
	for n, c := range []byte(s) {
		if !plain[c] {
			return n
		}
	}
	return len(s)
}

// unquote reads the text of a string from s[i] on to its closing quote, as encoding/json reads
// it: the escapes \" \\ \/ \b \f \n \r \t and \uXXXX (a surrogate pair combined, a surrogate alone
// read as U+FFFD), each byte of invalid UTF-8 read as U+FFFD, a control byte refused. It returns
// the value, the index after the closing quote, and whether the text is a valid JSON string.
func unquote(s string, i int) (value string, next int, ok bool) {
	// Without an escape the string ends at the next quote, and its text, when valid UTF-8 with no
	// control byte, is its own value.
	if n := strings.IndexByte(s[i:], '"'); n >= 0 {
		if text := s[i : i+n]; !strings.Contains(text, `\`) && !hasControl(text) && utf8.ValidString(text) {
			return text, i + n + 1, true
		}
	}
	// The value is built in a buffer on the stack (on the heap past its size), and copied once
	// into its string.
	var buf [128]byte
	out := buf[:0]
	for i < len(s) {
		c := s[i]
		switch {
		case plain[c]:
			out = append(out, c)
			i++
		case c == '"':
			return string(out), i + 1, true
		case c != '\\':
			if c < ' ' {
				return "", 0, false
			}
			r, size := utf8.DecodeRuneInString(s[i:]) // beyond ASCII
			out = utf8.AppendRune(out, r)             // U+FFFD for each byte of invalid UTF-8
			i += size
		case i+1 < len(s) && unescaped[s[i+1]] != 0:
			out = append(out, unescaped[s[i+1]])
			i += 2
		case i+1 < len(s) && s[i+1] == 'u':
			r, next, ok := unescapeU(s, i)
			if !ok {
				return "", 0, false
			}
			out = utf8.AppendRune(out, r)
			i = next
		default: // an escape JSON does not have, or the end
			return "", 0, false
		}
	}
	return "", 0, false
}

// hasControl reports whether text has a control byte, which JSON forbids in a string.
func hasControl(text string) bool {
	for _, c := range []byte(text) {
		if c < ' ' {
			return true
		}
	}
	return false
}

// unescaped is the byte each escape of one character stands for, by the character after the
// backslash; 0 for any other character.
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// unescapeU reads the escape \uXXXX at s[i], taken with the escape after it when the two are a
// surrogate pair, and U+FFFD for a surrogate alone, as encoding/json reads them; and the index
// after what it read.
func unescapeU(s string, i int) (r rune, next int, ok bool) {
	r = hex4(s, i+2)
	if r < 0 {
		return 0, 0, false
	}
	i += 6
	if !utf16.IsSurrogate(r) {
		return r, i, true
	}
	if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
		if low := hex4(s, i+2); low >= 0 {
			if pair := utf16.DecodeRune(r, low); pair != utf8.RuneError {
				return pair, i + 6, true
			}
		}
	}
	return utf8.RuneError, i, true
}

// hex4 is the value of the four hex digits at s[i], or -1.
func hex4(s string, i int) rune {
	if i+4 > len(s) {
		return -1
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
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

// int64 reads an integer.
func (p *parser) int64(out *int64) bool {
	n, ok := p.integer(64)
	*out = n
	return ok
}

// int reads an int.
func (p *parser) int(out *int) bool {
	n, ok := p.integer(strconv.IntSize)
	*out = int(n)
	return ok
}

// integer reads an integer that fits in bitSize bits: an optional minus sign and digits without a
// leading zero, added up as they are read. A number with a fraction or an exponent, which
// encoding/json refuses for an integer field, is left to it, and so is one out of range: up to 18
// digits always fit in 64 bits, more are strconv's to check.
func (p *parser) integer(bitSize int) (int64, bool) {
	text := p.s[p.i:]
	sign := 0
	if len(text) > 0 && text[0] == '-' {
		sign = 1
	}
	var n int64
	end := sign
	for ; end < len(text); end++ {
		digit := text[end] - '0'
		if digit > 9 {
			break
		}
		n = n*10 + int64(digit)
	}
	switch digits := end - sign; {
	case digits == 0, digits > 1 && text[sign] == '0':
		return 0, false
	case end < len(text) && (text[end] == '.' || text[end] == 'e' || text[end] == 'E'):
		return 0, false
	case digits > 18 || bitSize < 64:
		n, err := strconv.ParseInt(text[:end], 10, bitSize)
		p.i += end
		return n, err == nil
	}
	p.i += end
	if sign == 1 {
		n = -n
	}
	return n, true
}

// float reads a number, as encoding/json reads one into a float64.
func (p *parser) float(out *float64) bool {
	text, ok := p.number()
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(text, 64)
	*out = f
	return err == nil
}

// number reads a number's text, with JSON's grammar: an optional minus sign, an integer without
// a leading zero, an optional fraction and an optional exponent.
func (p *parser) number() (text string, ok bool) {
	start := p.i
	if p.i < len(p.s) && p.s[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.s) && p.s[p.i] == '0':
		p.i++
	case p.digits() == 0:
		return "", false
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if p.digits() == 0 {
			return "", false
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if p.digits() == 0 {
			return "", false
		}
	}
	return p.s[start:p.i], true
}

// digits reads a run of digits and says how many it read.
func (p *parser) digits() int {
	start := p.i
	for p.i < len(p.s) && '0' <= p.s[p.i] && p.s[p.i] <= '9' {
		p.i++
	}
	return p.i - start
}

// bool reads true or false.
func (p *parser) bool(out *bool) bool {
	switch {
	case p.literal("true"):
		*out = true
	case p.literal("false"):
		*out = false
	default:
		return false
	}
	return true
}
