package harness

import (
	"math/bits"
	"strconv"
)

// The scanner's numbers and booleans, read with encoding/json's grammar and meaning.

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

// int64 reads an integer. The encoder's usual one, from one to eighteen digits (which cannot
// overflow) without a sign or a leading zero, is added up here, with a byte's subtraction for a
// range check; any other goes to int64Signed. One of fewer than eight digits with a byte after
// it (a sequence number, a time, a turn) is read from one word, digitsValue: see there.
func (p *eventParser) int64() (int64, bool) {
	b, i := p.b, p.i
	if i+8 <= len(b) {
		const ones = 0x0101010101010101
		t := wordAt(b, i) ^ ones*'0' // a digit's byte is its value, 0 to 9
		// The high nibble of each byte that is not a digit: one above 3 (t's own), or from : to ?
		// (t+6 carries into it); a carry out of a byte marked already can mark the byte above it
		// wrongly, never one below, so the lowest mark is exact.
		if m := (t | (t + ones*6)) & (ones * 0xf0); m != 0 {
			k := bits.TrailingZeros64(m) / 8 // the digits before the first byte that is not one
			if c := b[i+k]; k > 0 && (k == 1 || b[i] != '0') && c != '.' && c|0x20 != 'e' {
				p.i = i + k
				return int64(digitsValue(t << (64 - 8*k))), true
			}
			return p.int64Signed()
		}
	}
	if i >= len(b) || b[i]-'0' > 9 {
		return p.int64Signed()
	}
	n := int64(b[i] - '0')
	for i++; i < len(b) && b[i]-'0' <= 9; i++ {
		n = n*10 + int64(b[i]-'0')
	}
	digits := i - p.i
	if digits > 18 || digits > 1 && b[p.i] == '0' || i < len(b) && (b[i] == '.' || b[i]|0x20 == 'e') {
		return p.int64Signed()
	}
	p.i = i
	return n, true
}

// digitsValue is the number whose digits are the bytes of t, the first the lowest byte, each a
// digit's value (0 to 9): three multiplications each combine the neighbours of the last step,
// digits into pairs, pairs into fours, fours into the eight (the shift before left the low bytes
// zero for a number of fewer digits, the zeros leading it).
func digitsValue(t uint64) uint64 {
	t = (t * (10<<8 + 1)) >> 8 & 0x00ff00ff00ff00ff
	t = (t * (100<<16 + 1)) >> 16 & 0x0000ffff0000ffff
	return (t * (10000<<32 + 1)) >> 32
}

// int64Signed reads any integer: a literal of at most 18 digits, which cannot overflow, is added
// up as it is read; anything else (a longer literal, a fraction, an exponent) goes through number
// and strconv, whose answers (and range errors, which end the fast path) are encoding/json's.
func (p *eventParser) int64Signed() (int64, bool) {
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
