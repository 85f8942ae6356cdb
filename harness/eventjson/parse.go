package eventjson

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/turnsim/turnsim/harness"
)

// The reader of one line. It reads what encoding/json reads the same way without question, and
// reports false at anything else, the caller then handing the whole line to encoding/json: a key
// in another letter case or with an escape (encoding/json matches keys case-insensitively), an
// unknown or repeated key, null, a number that is not a plain integer where an int goes, data
// before type (which payload is it?), a missing field an event needs, bad syntax. So what it
// accepts, encoding/json accepts with the same result.

// parser reads JSON values from s, one after another, from i on.
type parser struct {
	s string
	i int
}

// eventKeys are an event's keys, in the order the encoder writes them.
var eventKeys = newKeys(keySeq, keyType, keyTime, keyData)

// parseEvent reads a whole line as an event; ok is false when encoding/json must decide. The
// members every line begins with are read first as the encoder writes them, in one pass; a line
// spelled otherwise is read again by the member loop.
func parseEvent(line string) (e harness.Event, ok bool) {
	p := parser{s: line}
	if p.literal(`{"seq":`) && p.int64(&e.Seq) && p.literal(`,"type":`) && p.string(&e.Type) && e.Type != "" &&
		p.literal(`,"time":`) && p.int64(&e.Time) && p.literal(`,"data":`) && p.data(e.Type, &e.Data) &&
		p.literal(`}`) && p.i == len(p.s) {
		return e, true
	}
	p, e = parser{s: line}, harness.Event{}
	seen, ok := p.members(&eventKeys, func(k key) bool {
		switch k {
		case keySeq:
			return p.int64(&e.Seq)
		case keyType:
			return p.string(&e.Type) && e.Type != ""
		case keyTime:
			return p.int64(&e.Time)
		case keyData:
			return e.Type != "" && p.data(e.Type, &e.Data)
		}
		return false
	})
	p.space()
	return e, ok && seen == eventKeys.all() && p.i == len(p.s)
}

// literal reads text if the line goes on with it, as it is.
func (p *parser) literal(text string) bool {
	if strings.HasPrefix(p.s[p.i:], text) {
		p.i += len(text)
		return true
	}
	return false
}

func (p *parser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// next reads c, after any spacing, if it comes next.
func (p *parser) next(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// object reads an object whose keys are among k's, handing each member's key to member, which
// reads the member's value and reports whether it could. A key not among k's, a repeated key, a
// key with anything but plain ASCII, or bad syntax refuses the object. The key the encoder writes
// next is recognised by one comparison; any other order or spacing by a search of k.
func (p *parser) object(k *keys, member func(key) bool) bool {
	_, ok := p.members(k, member)
	return ok
}

// members is object, and the set of the keys it read, one bit a key of k.
func (p *parser) members(k *keys, member func(key) bool) (seen uint32, ok bool) {
	if !p.next('{') {
		return 0, false
	}
	if p.next('}') {
		return 0, true
	}
	for after := 0; ; {
		i := p.keyOf(k, after)
		if i < 0 || seen&(1<<i) != 0 || !member(k.list[i]) {
			return seen, false
		}
		seen |= 1 << i
		after = i + 1
		if p.i < len(p.s) && p.s[p.i] <= ' ' {
			p.space()
		}
		if p.i == len(p.s) {
			return seen, false
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return seen, true
		default:
			return seen, false
		}
	}
}

// keyOf reads a member's key and its colon, and answers the key's index in k, or -1 for a key not
// among k's or bad syntax. The encoder writes the keys in k's order, the optional ones left out,
// so the key is first looked for as one of those after the last one read (after on), written as
// the encoder writes it; any other is read and looked up.
func (p *parser) keyOf(k *keys, after int) int {
	if p.i < len(p.s) && p.s[p.i] <= ' ' {
		p.space()
	}
	if i := k.match(p.s[p.i:], after); i >= 0 {
		p.i += len(k.quoted[i])
		return i
	}
	name, ok := p.key()
	if !ok || !p.next(':') {
		return -1
	}
	return k.place(name)
}

// key reads a member's key: a string of plain ASCII, as every key of the log is; any other is
// left to encoding/json.
func (p *parser) key() (string, bool) {
	if !p.next('"') {
		return "", false
	}
	start := p.i
	p.i = plainEnd(p.s, p.i)
	if p.i == len(p.s) || p.s[p.i] != '"' {
		return "", false
	}
	p.i++
	return p.s[start : p.i-1], true
}

// plain marks the bytes that stand for themselves in a JSON string: ASCII, not a control byte, a
// quote or a backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plainEnd is the index of the first byte of s from i on that plain does not mark, or len(s).
func plainEnd(s string, i int) int {
	for i < len(s) && plain[s[i]] {
		i++
	}
	return i
}

// string reads a string into out, with encoding/json's grammar (no control bytes; the escapes
// \" \\ \/ \b \f \n \r \t \uXXXX) and meaning (a surrogate pair combined, a lone surrogate or a
// byte of invalid UTF-8 read as U+FFFD). A string of plain bytes, as nearly all are, is its own
// value: a part of the line, not a copy.
func (p *parser) string(out *string) bool {
	if !p.next('"') {
		return false
	}
	start := p.i
	if end := plainEnd(p.s, start); end < len(p.s) && p.s[end] == '"' {
		*out = p.s[start:end]
		p.i = end + 1
		return true
	}
	// Escapes of one character in ASCII text, as a tool call's JSON arguments have: read and
	// unquoted in one pass.
	if value, next, ok := unquoteASCII(p.s, start); ok {
		*out = value
		p.i = next
		return true
	}
	// Anything else to check or unquote: a \u escape, a byte above ASCII, a control byte, the end.
	end, escaped, ok := stringEnd(p.s, start)
	if !ok {
		return false
	}
	raw := p.s[start:end]
	p.i = end + 1
	if !escaped && utf8.ValidString(raw) {
		*out = raw
	} else {
		*out = unquote(raw)
	}
	return true
}

// stringEnd is the index of the quote that closes the string whose text goes on at s[i], whether
// the text has escapes, and whether it is a valid JSON string.
func stringEnd(s string, i int) (end int, escaped, ok bool) {
	for i < len(s) {
		switch c := s[i]; {
		case c == '"':
			return i, escaped, true
		case c == '\\':
			escaped = true
			if i+1 == len(s) {
				return 0, false, false
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(s) || hex4(s[i+2:i+6]) < 0 {
					return 0, false, false
				}
				i += 6
			default:
				return 0, false, false
			}
		case c < 0x20:
			return 0, false, false
		default:
			i++
		}
	}
	return 0, false, false
}

// hex4 is the value of four hex digits, or -1.
func hex4(s string) rune {
	var r rune
	for _, c := range []byte(s[:4]) {
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

// unescaped is the byte an escape of one character stands for, by that character; 0 for any
// other.
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// unquoteASCII reads the string whose text begins at s[start] when it holds only plain bytes and
// escapes of one character: its value, and the index after its closing quote. ok is false at
// anything else (a \u escape, a byte above ASCII, a control byte, the end), which unquote reads.
func unquoteASCII(s string, start int) (value string, next int, ok bool) {
	var buf [256]byte
	out := buf[:0]
	for i := start; i < len(s); {
		end := plainEnd(s, i)
		out = append(out, s[i:end]...)
		i = end
		switch {
		case i == len(s):
			return "", 0, false
		case s[i] == '"':
			return string(out), i + 1, true
		case s[i] != '\\' || i+1 == len(s) || unescaped[s[i+1]] == 0:
			return "", 0, false
		}
		out = append(out, unescaped[s[i+1]])
		i += 2
	}
	return "", 0, false
}

// unquote is the value of the text of a string stringEnd accepted, as encoding/json unquotes it.
func unquote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + utf8.UTFMax)
	for i := 0; i < len(s); {
		if end := plainEnd(s, i); end > i {
			b.WriteString(s[i:end])
			i = end
			continue
		}
		if s[i] != '\\' {
			r, size := utf8.DecodeRuneInString(s[i:])
			b.WriteRune(r) // utf8.RuneError for a byte of invalid UTF-8, one at a time
			i += size
			continue
		}
		i++
		switch s[i] {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			var r rune
			r, i = unescapeU(s, i)
			b.WriteRune(r)
			continue
		default: // " \ /
			b.WriteByte(s[i])
		}
		i++
	}
	return b.String()
}

// unescapeU is the rune of the escape \uXXXX whose u is at s[i], taken with the escape after it
// when the two are a surrogate pair, and U+FFFD for a surrogate alone, as encoding/json reads
// them; and the index after what it read.
func unescapeU(s string, i int) (rune, int) {
	r := hex4(s[i+1:])
	i += 5
	if !utf16.IsSurrogate(r) {
		return r, i
	}
	if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
		if pair := utf16.DecodeRune(r, hex4(s[i+2:])); pair != utf8.RuneError {
			return pair, i + 6
		}
	}
	return utf8.RuneError, i
}

// number reads a number's text, with JSON's grammar, and whether it is a plain integer (no
// fraction, no exponent).
func (p *parser) number() (text string, integer, ok bool) {
	p.space()
	start := p.i
	if p.i < len(p.s) && p.s[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.s) && p.s[p.i] == '0':
		p.i++
	case p.i < len(p.s) && '1' <= p.s[p.i] && p.s[p.i] <= '9':
		p.digits()
	default:
		return "", false, false
	}
	integer = true
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		integer = false
		if p.digits() == 0 {
			return "", false, false
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		integer = false
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if p.digits() == 0 {
			return "", false, false
		}
	}
	return p.s[start:p.i], integer, true
}

// digits reads a run of digits and says how many it read.
func (p *parser) digits() int {
	start := p.i
	for p.i < len(p.s) && '0' <= p.s[p.i] && p.s[p.i] <= '9' {
		p.i++
	}
	return p.i - start
}

// int64 reads an integer; a fraction or an exponent, which encoding/json refuses for an integer
// field, and a number out of range are left to it.
func (p *parser) int64(out *int64) bool {
	n, ok := p.integer(64)
	*out = n
	return ok
}

// int reads an int, as int64 does.
func (p *parser) int(out *int) bool {
	n, ok := p.integer(strconv.IntSize)
	*out = int(n)
	return ok
}

// integer reads an integer of the given size in bits, added up as its digits are read; one of
// more than 18 digits, which could overflow 64 bits, is strconv's to range-check. What JSON's
// grammar refuses (a leading zero, a sign alone) and what is not an integer (a fraction, an
// exponent) are left to encoding/json.
func (p *parser) integer(bitSize int) (int64, bool) {
	if p.i < len(p.s) && p.s[p.i] <= ' ' {
		p.space()
	}
	start, i := p.i, p.i
	negative := i < len(p.s) && p.s[i] == '-'
	if negative {
		i++
	}
	first := i
	var n int64
	for i < len(p.s) && p.s[i]-'0' <= 9 {
		n = n*10 + int64(p.s[i]-'0')
		i++
	}
	digits := i - first
	if digits == 0 || digits > 1 && p.s[first] == '0' {
		return 0, false
	}
	if i < len(p.s) && (p.s[i] == '.' || p.s[i] == 'e' || p.s[i] == 'E') {
		return 0, false
	}
	p.i = i
	if digits > 18 || bitSize < 64 {
		n, err := strconv.ParseInt(p.s[start:i], 10, bitSize)
		return n, err == nil
	}
	if negative {
		n = -n
	}
	return n, true
}

func (p *parser) float(out *float64) bool {
	text, _, ok := p.number()
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(text, 64)
	*out = f
	return err == nil
}

func (p *parser) bool(out *bool) bool {
	p.space()
	switch {
	case strings.HasPrefix(p.s[p.i:], "true"):
		*out = true
		p.i += 4
	case strings.HasPrefix(p.s[p.i:], "false"):
		*out = false
		p.i += 5
	default:
		return false
	}
	return true
}
