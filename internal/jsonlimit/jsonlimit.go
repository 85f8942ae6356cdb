// Package jsonlimit checks a JSON document's shape against limits while reading it, before a
// decoder builds anything from it: a file of a million empty objects, a string of a gigabyte, a
// nesting a thousand deep or an object naming a key twice is refused after reading no more than
// what breaks the limit, in constant memory, instead of after the decoder has allocated its
// values. A document within the limits is also valid JSON (one value, whitespace around it), so
// what the decoder then meets is bounded.
package jsonlimit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// Limits bound a document. A zero field takes the default named beside it.
type Limits struct {
	// Bytes bounds the whole document (0: no bound beyond the reader's).
	Bytes int64
	// Depth bounds the nesting of arrays and objects (0: 64).
	Depth int
	// Elements bounds the elements of any one array and the members of any one object (0: no
	// bound).
	Elements int
	// Containers bounds the arrays and objects of the whole document (0: no bound).
	Containers int
	// StringBytes bounds any one string, key or value, as written (0: no bound).
	StringBytes int
	// DuplicateKeys refuses an object that names a key twice (compared after unescaping), which
	// encoding/json and the harness's codec take silently, the last one winning.
	DuplicateKeys bool
	// TopKey, if set, is called with each key of the top-level object as it is read (unescaped);
	// an error it returns stops the reading there, as a broken limit.
	TopKey func(key string) error
}

const defaultDepth = 64

// Error is a document that breaks a limit or is not JSON: Offset is the byte at which it was
// found, Reason what is wrong, and Limit whether a limit was broken (false: it is not JSON, which
// a caller may prefer to hear from its own decoder, in its own words).
type Error struct {
	Offset int64
	Reason string
	Limit  bool
}

func (e *Error) Error() string { return fmt.Sprintf("jsonlimit: at byte %d: %s", e.Offset, e.Reason) }

// CheckBytes checks data against the limits.
func CheckBytes(data []byte, lim Limits) error {
	if lim.Bytes > 0 && int64(len(data)) > lim.Bytes {
		return &Error{Offset: lim.Bytes, Reason: fmt.Sprintf("the document is longer than %d bytes", lim.Bytes), Limit: true}
	}
	s := scanner{buf: data, end: len(data), lim: lim, done: true}
	return s.document()
}

// Check reads r to its end (or to the first problem) and checks what it reads.
func Check(r io.Reader, lim Limits) error {
	s := scanner{r: r, lim: lim, buf: make([]byte, 64<<10)}
	return s.document()
}

// scanner walks a document byte by byte over a window of it.
type scanner struct {
	r          io.Reader
	buf        []byte
	pos, end   int
	base       int64 // offset of buf[0] in the document
	done       bool  // the reader is exhausted
	readErr    error
	lim        Limits
	containers int
	raw        []byte   // a key's bytes, reused
	keys       []string // the keys of the open objects, outermost first
}

// errEOF marks the end of the document inside a value.
var errEOF = errors.New("unexpected end of the document")

func (s *scanner) offset() int64 { return s.base + int64(s.pos) }

func (s *scanner) fail(reason string, args ...any) error {
	return &Error{Offset: s.offset(), Reason: fmt.Sprintf(reason, args...)}
}

// failLimit is fail for a broken limit.
func (s *scanner) failLimit(reason string, args ...any) error {
	return &Error{Offset: s.offset(), Reason: fmt.Sprintf(reason, args...), Limit: true}
}

// fill reads more of the document; false at its end.
func (s *scanner) fill() bool {
	if s.done {
		return false
	}
	s.base += int64(s.end)
	s.pos, s.end = 0, 0
	for s.end == 0 {
		n, err := s.r.Read(s.buf)
		s.end = n
		if err != nil {
			s.done = true
			if !errors.Is(err, io.EOF) {
				s.readErr = err
			}
			break
		}
	}
	if s.lim.Bytes > 0 && s.base+int64(s.end) > s.lim.Bytes {
		over := int(s.lim.Bytes - s.base)
		s.end = max(over, 0)
		s.done = true
		s.readErr = &Error{Offset: s.lim.Bytes, Reason: fmt.Sprintf("the document is longer than %d bytes", s.lim.Bytes), Limit: true}
	}
	return s.end > 0
}

// peek is the next byte, or false at the document's end.
func (s *scanner) peek() (byte, bool) {
	if s.pos == s.end && !s.fill() {
		return 0, false
	}
	return s.buf[s.pos], true
}

// endErr is the error for a document that ended in a value: the reader's own, or errEOF.
func (s *scanner) endErr() error {
	if s.readErr != nil {
		var e *Error
		if errors.As(s.readErr, &e) {
			return e
		}
		return fmt.Errorf("jsonlimit: reading the document: %w", s.readErr)
	}
	return s.fail("%v", errEOF)
}

func (s *scanner) skipSpace() {
	for {
		c, ok := s.peek()
		if !ok || (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			return
		}
		s.pos++
	}
}

func (s *scanner) document() error {
	if s.lim.Depth == 0 {
		s.lim.Depth = defaultDepth
	}
	s.skipSpace()
	if err := s.value(0); err != nil {
		return err
	}
	s.skipSpace()
	if _, ok := s.peek(); ok {
		return s.fail("trailing data after the JSON value")
	}
	if s.readErr != nil {
		return s.endErr()
	}
	return nil
}

func (s *scanner) value(depth int) error {
	c, ok := s.peek()
	if !ok {
		return s.endErr()
	}
	switch {
	case c == '{' || c == '[':
		return s.container(c, depth+1)
	case c == '"':
		_, err := s.str(false)
		return err
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return s.fail("%q cannot start a JSON value", rune(c))
}

func (s *scanner) container(open byte, depth int) error {
	if depth > s.lim.Depth {
		return s.failLimit("nested deeper than %d arrays and objects", s.lim.Depth)
	}
	s.containers++
	if s.lim.Containers > 0 && s.containers > s.lim.Containers {
		return s.failLimit("more than %d arrays and objects in all", s.lim.Containers)
	}
	s.pos++
	closing := byte(']')
	what := "array of more than %d elements"
	track := false
	firstKey := len(s.keys) // this object's keys are s.keys[firstKey:]
	var keySet map[string]bool
	if open == '{' {
		closing, what = '}', "object of more than %d members"
		track = s.lim.DuplicateKeys || depth == 1 && s.lim.TopKey != nil
		defer func() { s.keys = s.keys[:firstKey] }()
	}
	s.skipSpace()
	if c, ok := s.peek(); ok && c == closing {
		s.pos++
		return nil
	}
	for n := 1; ; n++ {
		if s.lim.Elements > 0 && n > s.lim.Elements {
			return s.failLimit(what, s.lim.Elements)
		}
		if open == '{' {
			if c, ok := s.peek(); !ok {
				return s.endErr()
			} else if c != '"' {
				return s.fail("an object key must be a string, not %q", rune(c))
			}
			at := s.offset()
			key, err := s.str(track)
			if err != nil {
				return err
			}
			if depth == 1 && s.lim.TopKey != nil {
				if err := s.lim.TopKey(key); err != nil {
					return &Error{Offset: at, Reason: err.Error(), Limit: true}
				}
			}
			if s.lim.DuplicateKeys {
				if s.seenKey(key, firstKey, &keySet) {
					return &Error{Offset: at, Reason: fmt.Sprintf("the key %q appears twice in one object", key), Limit: true}
				}
				s.keys = append(s.keys, key)
			}
			s.skipSpace()
			if c, ok := s.peek(); !ok {
				return s.endErr()
			} else if c != ':' {
				return s.fail("expected ':' after an object key, not %q", rune(c))
			}
			s.pos++
			s.skipSpace()
		}
		if err := s.value(depth); err != nil {
			return err
		}
		s.skipSpace()
		c, ok := s.peek()
		switch {
		case !ok:
			return s.endErr()
		case c == closing:
			s.pos++
			return nil
		case c != ',':
			return s.fail("expected ',' or %q, not %q", rune(closing), rune(c))
		}
		s.pos++
		s.skipSpace()
	}
}

// str reads a string; with keep, it returns its text as encoding/json decodes it (for comparing
// keys: "a" and "\u0061" are one key).
func (s *scanner) str(keep bool) (string, error) {
	s.pos++ // the opening quote
	raw := s.raw[:0]
	escaped := false
	size := 0
	for {
		if s.pos == s.end && !s.fill() {
			return "", s.endErr()
		}
		// The plain run of the string within the window, in one loop.
		run := s.pos
		for run < s.end {
			c := s.buf[run]
			if c == '"' || c == '\\' || c < 0x20 {
				break
			}
			run++
		}
		size += run - s.pos
		if keep {
			raw = append(raw, s.buf[s.pos:run]...)
		}
		s.pos = run
		if s.lim.StringBytes > 0 && size > s.lim.StringBytes {
			return "", s.failLimit("a string longer than %d bytes", s.lim.StringBytes)
		}
		if s.pos == s.end {
			continue
		}
		c := s.buf[s.pos]
		s.pos++
		switch {
		case c == '"':
			s.raw = raw
			if !keep {
				return "", nil
			}
			if !escaped && utf8.Valid(raw) {
				return string(raw), nil // what encoding/json reads
			}
			var text string
			if err := json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &text); err != nil {
				return "", s.fail("a string encoding/json does not read: %v", err)
			}
			return text, nil
		case c < 0x20:
			return "", s.fail("a control character in a string")
		}
		// A backslash.
		escaped = true
		size++
		e, ok := s.peek()
		if !ok {
			return "", s.endErr()
		}
		s.pos++
		size++
		if keep {
			raw = append(raw, '\\', e)
		}
		switch e {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			for range 4 {
				h, ok := s.peek()
				if !ok {
					return "", s.endErr()
				}
				if !isHex(h) {
					return "", s.fail("%q in a \\u escape", rune(h))
				}
				s.pos++
				size++
				if keep {
					raw = append(raw, h)
				}
			}
		default:
			return "", s.fail("\\%c is not a JSON escape", e)
		}
	}
}

// keysListedMax is how many keys an object's duplicates are looked for among one by one; past
// it, they go into a set.
const keysListedMax = 32

// seenKey tells whether this object (its keys from s.keys[first:], or the set once it has one)
// already named key, and adds it to the set once there is one.
func (s *scanner) seenKey(key string, first int, set *map[string]bool) bool {
	own := s.keys[first:]
	if *set == nil && len(own) < keysListedMax {
		for _, k := range own {
			if k == key {
				return true
			}
		}
		return false
	}
	if *set == nil {
		*set = make(map[string]bool, 2*len(own))
		for _, k := range own {
			(*set)[k] = true
		}
	}
	if (*set)[key] {
		return true
	}
	(*set)[key] = true
	return false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// number reads a number as JSON writes it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *scanner) number() error {
	length := 0
	next := func(accept func(byte) bool) bool {
		c, ok := s.peek()
		if !ok || !accept(c) {
			return false
		}
		s.pos++
		length++
		return true
	}
	digit := func(c byte) bool { return c >= '0' && c <= '9' }
	digits := func() int {
		n := 0
		for next(digit) {
			n++
		}
		return n
	}
	next(func(c byte) bool { return c == '-' })
	switch {
	case next(func(c byte) bool { return c == '0' }):
	case digits() == 0:
		if _, ok := s.peek(); !ok {
			return s.endErr()
		}
		return s.fail("a number with no digit")
	}
	if next(func(c byte) bool { return c == '.' }) && digits() == 0 {
		return s.fail("a number with no digit after its point")
	}
	if next(func(c byte) bool { return c == 'e' || c == 'E' }) {
		next(func(c byte) bool { return c == '+' || c == '-' })
		if digits() == 0 {
			return s.fail("a number with no digit in its exponent")
		}
	}
	if s.lim.StringBytes > 0 && length > s.lim.StringBytes {
		return s.failLimit("a number longer than %d bytes", s.lim.StringBytes)
	}
	return nil
}

func (s *scanner) literal(word string) error {
	for i := range len(word) {
		c, ok := s.peek()
		if !ok {
			return s.endErr()
		}
		if c != word[i] {
			return s.fail("%q in what should be %s", rune(c), word)
		}
		s.pos++
	}
	return nil
}
