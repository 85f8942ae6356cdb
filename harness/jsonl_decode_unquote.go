package harness

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// stringUnquoting reads on from i, at the first backslash of a string that began at start, and
// writes its value as it reads the text: one pass, where stringRest checks the text and
// unquoteASCII then reads it again to write the value (a tool's JSON arguments, a dozen escaped
// quotes each, were a third of the decoder's work in a simulator run). It reads plain bytes and
// two-byte escapes, most of what the harness writes; it answers false at anything else (a \u
// escape, which the encoder writes for <, >, & and control bytes; a byte not ASCII, bad syntax,
// a value longer than its buffer), and stringRest then reads the string from i, its answer
// being the string's. The value goes into the decoder's text bytes
// (p.text's), or, without a decoder, into a buffer on the stack that a new string copies (of the
// value's length, where stringRest's is of the text's).
func (p *eventParser) stringUnquoting(start, i int) (string, bool) {
	b := p.b
	if s := p.slabs; s != nil {
		out := s.textRoom(len(b) - start)
		n, end := unquoteEscaped(b, start, i, out)
		if end == 0 {
			return "", false
		}
		p.i = end
		s.textBytes = s.textBytes[:len(s.textBytes)+n]
		return unsafe.String(unsafe.SliceData(out), n), true
	}
	var buf [256]byte // a tool call's arguments, say; small, as the task stacks are (sim/sched)
	text := b[:min(len(b), start+len(buf))]
	if i >= len(text) { // plain bytes up to the end of the buffer
		return "", false
	}
	n, end := unquoteEscaped(text, start, i, buf[:])
	if end == 0 {
		return "", false
	}
	p.i = end
	return string(buf[:n]), true
}

// unquoteEscaped writes into out the value of the string of b that began at start, read on from
// i, a backslash, the bytes before it being plain; it answers the value's length and the index
// after the closing quote, or end 0 at anything but plain bytes and two-byte escapes (stringRest
// decides those). out has room for len(b)-start bytes, which the value never exceeds; nor does
// the part of it written so far exceed the text read, so a word read at i (i+8 <= len(b)) has
// room at n, and is stored whole (the bytes past a mark are written over next).
func unquoteEscaped(b string, start, i int, out []byte) (n, end int) {
	n = copy(out, b[start:i])
	for {
		// b[i] is a backslash.
		if i+1 >= len(b) {
			return 0, 0
		}
		c := unescaped[b[i+1]]
		if c == 0 { // \u, or not an escape
			return 0, 0
		}
		out[n] = c
		n++
		i += 2
		for ; i+8 <= len(b); i += 8 {
			w := wordAt(b, i)
			binary.LittleEndian.PutUint64(out[n:], w)
			if m := notPlainMarks(w); m != 0 {
				k := bits.TrailingZeros64(m) / 8
				i, n = i+k, n+k
				goto stopped
			}
			n += 8
		}
		for i < len(b) && plainByte[b[i]] {
			out[n] = b[i]
			i, n = i+1, n+1
		}
	stopped:
		if i < len(b) && b[i] == '"' {
			return n, i + 1
		}
		if i >= len(b) || b[i] != '\\' {
			return 0, 0
		}
	}
}

// unescaped is the byte a two-byte escape stands for, by its second byte; 0 for any other byte.
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// textRoom is the room for a value of at most n bytes after the decoder's text bytes (the
// caller adds the value's length to them once it is written), in a new, larger array when they
// have not the room: the strings made in the old one keep it.
func (s *payloadSlabs) textRoom(n int) []byte {
	if cap(s.textBytes)-len(s.textBytes) < n {
		s.textBytes = make([]byte, 0, max(2*cap(s.textBytes), n, 256))
	}
	return s.textBytes[len(s.textBytes) : len(s.textBytes)+n]
}
