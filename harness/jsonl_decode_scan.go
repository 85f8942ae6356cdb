package harness

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The scanner's values: strings and numbers, read with encoding/json's grammar and meaning.

// skipPlain is the index of the first byte from i on that is not plainByte (len(b) if none),
// counted in locals rather than in the parser's field, which the loop would store at every byte.
// (Eight bytes at a time, by word arithmetic, cost more than it saved: the strings are short,
// and the function no longer inlined.)
func skipPlain(b string, i int) int {
	for i < len(b) && plainByte[b[i]] {
		i++
	}
	return i
}

// plainByte marks the bytes a string holds as they are: ASCII, neither a control byte nor a
// quote nor a backslash. A string of only these is its own value, so the scan for its end is one
// table load and compare per byte.
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
// combined, a lone surrogate or invalid UTF-8 replaced by U+FFFD).
func (p *eventParser) string() (string, bool) {
	p.space()
	if !p.consume('"') {
		return "", false
	}
	start, plain := p.i, true
	p.i = skipPlain(p.b, p.i)
	for {
		if p.i >= len(p.b) {
			return "", false
		}
		c := p.b[p.i]
		switch {
		case c == '"':
			raw := p.b[start:p.i]
			p.i++
			if plain {
				return raw, true
			}
			return unquoteJSON(raw), true
		case c < 0x20:
			return "", false
		case c == '\\':
			plain = false
			p.i++
			if p.i >= len(p.b) {
				return "", false
			}
			switch p.b[p.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i++
			case 'u':
				if p.i+5 > len(p.b) || hex4(p.b[p.i+1:p.i+5]) < 0 {
					return "", false
				}
				p.i += 5
			default:
				return "", false
			}
		case c >= utf8.RuneSelf:
			plain = false
			p.i++
		default:
			p.i++
		}
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

// unquoteJSON unquotes the inside of a string the scanner accepted, as encoding/json does.
func unquoteJSON(s string) string {
	out := make([]byte, 0, len(s)+utf8.UTFMax)
	for r := 0; r < len(s); {
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
				rr := hex4(s[r+1:])
				r += 5
				if utf16.IsSurrogate(rr) {
					if r+6 <= len(s) && s[r] == '\\' && s[r+1] == 'u' {
						if dec := utf16.DecodeRune(rr, hex4(s[r+2:])); dec != utf8.RuneError {
							out = utf8.AppendRune(out, dec)
							r += 6
							continue
						}
					}
					rr = utf8.RuneError
				}
				out = utf8.AppendRune(out, rr)
				continue
			default: // " \ /
				out = append(out, s[r])
			}
			r++
		case c < utf8.RuneSelf:
			out = append(out, c)
			r++
		default:
			rr, size := utf8.DecodeRuneInString(s[r:])
			out = utf8.AppendRune(out, rr) // RuneError for invalid bytes, one at a time
			r += size
		}
	}
	return string(out)
}

func (p *eventParser) boolInto(out *bool) bool {
	p.space()
	switch {
	case len(p.b)-p.i >= 4 && p.b[p.i:p.i+4] == "true":
		*out = true
		p.i += 4
		return true
	case len(p.b)-p.i >= 5 && p.b[p.i:p.i+5] == "false":
		*out = false
		p.i += 5
		return true
	}
	return false
}

// number reads a JSON number's literal (the grammar checked) and whether it is a plain integer.
func (p *eventParser) number() (literal string, integer, ok bool) {
	p.space()
	start := p.i
	p.consume('-')
	switch {
	case p.consume('0'):
	case p.i < len(p.b) && '1' <= p.b[p.i] && p.b[p.i] <= '9':
		p.digits()
	default:
		return "", false, false
	}
	integer = true
	if p.consume('.') {
		integer = false
		if p.digits() == 0 {
			return "", false, false
		}
	}
	if p.consume('e') || p.consume('E') {
		integer = false
		if !p.consume('+') {
			p.consume('-')
		}
		if p.digits() == 0 {
			return "", false, false
		}
	}
	return p.b[start:p.i], integer, true
}

func (p *eventParser) digits() int {
	start := p.i
	for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i - start
}

// int64 reads an integer. A literal of at most 18 digits, which cannot overflow, is added up as
// it is read; anything else (a longer literal, a fraction, an exponent) goes through number and
// strconv, whose answers (and range errors, which end the fast path) are encoding/json's.
func (p *eventParser) int64() (int64, bool) {
	if p.i < len(p.b) && p.b[p.i] <= ' ' {
		p.space()
	}
	b, start := p.b, p.i
	i := start
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	var n int64
	switch {
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		d0 := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			n = n*10 + int64(b[i]-'0')
			i++
		}
		if i-d0 > 18 {
			return p.int64Slow(start)
		}
	case i < len(b) && b[i] == '0':
		i++
	default:
		return 0, false
	}
	if i < len(b) {
		if c := b[i]; c == '.' || c == 'e' || c == 'E' {
			return p.int64Slow(start) // not an integer: number checks the grammar, then refuses it
		}
	}
	p.i = i
	if neg {
		n = -n
	}
	return n, true
}

// int64Slow rereads from start the literal int64 could not add up by itself.
func (p *eventParser) int64Slow(start int) (int64, bool) {
	p.i = start
	literal, integer, ok := p.number()
	if !ok || !integer {
		return 0, false
	}
	n, err := strconv.ParseInt(literal, 10, 64)
	return n, err == nil
}

// intInto reads an int (64 bits wide, as on every platform the harness runs on; on a 32-bit one
// the range check is strconv's, as encoding/json's is).
func (p *eventParser) intInto(out *int) bool {
	if strconv.IntSize == 64 {
		n, ok := p.int64()
		*out = int(n)
		return ok
	}
	literal, integer, ok := p.number()
	if !ok || !integer {
		return false
	}
	n, err := strconv.ParseInt(literal, 10, strconv.IntSize)
	*out = int(n)
	return err == nil
}

func (p *eventParser) floatInto(out *float64) bool {
	literal, _, ok := p.number()
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(literal, 64)
	*out = f
	return err == nil
}
