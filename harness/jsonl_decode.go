package harness

import (
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The event decoder's fast path reads the lines the harness writes (and any spacing of them)
// without reflection, and gives up, leaving the line to encoding/json, at anything it does not
// read exactly as encoding/json would: a key in another letter case, an unknown or repeated key,
// null, a number that is not a plain integer where an int goes, a key order with data before
// type, a missing field the event needs. So what it accepts, encoding/json accepts with the same
// result, and everything else gets encoding/json's own answer and error message.
// FuzzEventCodecMatchesEncodingJSON holds it to that.

// eventParser reads one JSON value at a time from b; every method reports false at anything
// outside the fast path, and the caller then abandons the line.
type eventParser struct {
	b string // the line, copied once: every plain string decoded is a substring of it
	i int
}

// decodeEventFast decodes a line the fast way; ok is false when encoding/json must decide.
func decodeEventFast(line []byte) (e Event, ok bool) { return decodeEventText(string(line)) }

// decodeEventText is decodeEventFast of a line already copied to a string (of a whole log, say):
// the strings decoded are substrings of it.
func decodeEventText(line string) (e Event, ok bool) {
	p := eventParser{b: line}
	var seen [4]bool // seq, type, time, data
	if !p.open() {
		return e, false
	}
	for first := true; ; first = false {
		key, more, ok := p.nextKey(first)
		if !ok {
			return e, false
		}
		if !more {
			break
		}
		switch key {
		case "seq":
			if seen[0] {
				return e, false
			}
			seen[0] = true
			e.Seq, ok = p.int64()
		case "type":
			if seen[1] {
				return e, false
			}
			seen[1] = true
			e.Type, ok = p.string()
		case "time":
			if seen[2] {
				return e, false
			}
			seen[2] = true
			e.Time, ok = p.int64()
		case "data":
			if seen[3] || !seen[1] {
				return e, false
			}
			seen[3] = true
			e.Data, ok = p.data(e.Type)
		default:
			return e, false
		}
		if !ok {
			return e, false
		}
	}
	p.space()
	if p.i != len(p.b) || !seen[0] || !seen[1] || !seen[2] || !seen[3] || e.Type == "" {
		return e, false
	}
	return e, true
}

// data decodes the payload of an event of the given type.
func (p *eventParser) data(eventType string) (EventData, bool) {
	switch eventType {
	case TypeUserMessage:
		var d UserMessage
		ok := p.object(func(key string) bool {
			switch key {
			case "message":
				return p.object(func(key string) bool {
					switch key {
					case "id":
						return p.stringInto(&d.Message.ID)
					case "text":
						return p.stringInto(&d.Message.Text)
					}
					return false
				})
			}
			return false
		})
		return d, ok
	case TypeInboxPush:
		var d InboxPush
		ok := p.object(func(key string) bool {
			switch key {
			case "lane":
				return p.stringInto((*string)(&d.Lane))
			case "kind":
				return p.stringInto((*string)(&d.Kind))
			case "messageId":
				return p.stringInto(&d.MessageID)
			}
			return false
		})
		return d, ok
	case TypeInboxClaim:
		var d InboxClaim
		ok := p.object(func(key string) bool {
			switch key {
			case "turn":
				return p.intInto(&d.Turn)
			case "step":
				return p.intInto(&d.Step)
			case "lane":
				return p.stringInto((*string)(&d.Lane))
			case "messageId":
				return p.stringInto(&d.MessageID)
			}
			return false
		})
		return d, ok
	case TypeInboxClear:
		var d InboxClear
		ok := p.object(func(key string) bool {
			switch key {
			case "lane":
				return p.stringInto((*string)(&d.Lane))
			case "messageId":
				return p.stringInto(&d.MessageID)
			}
			return false
		})
		return d, ok
	case TypeTurnStart:
		var d TurnStart
		ok := p.object(func(key string) bool { return key == "turn" && p.intInto(&d.Turn) })
		return d, ok
	case TypeTurnEnd:
		var d TurnEnd
		ok := p.object(func(key string) bool {
			switch key {
			case "turn":
				return p.intInto(&d.Turn)
			case "reason":
				return p.turnEndReason(&d.Reason)
			}
			return false
		})
		return d, ok
	case TypeStepStart:
		var d StepStart
		ok := p.turnStep(&d.Turn, &d.Step)
		return d, ok
	case TypeStepEnd:
		var d StepEnd
		ok := p.turnStep(&d.Turn, &d.Step)
		return d, ok
	case TypeAssistantChunk:
		var d AssistantChunk
		ok := p.object(func(key string) bool {
			switch key {
			case "turn":
				return p.intInto(&d.Turn)
			case "step":
				return p.intInto(&d.Step)
			case "chunk":
				return p.chunk(&d.Chunk)
			}
			return false
		})
		return d, ok
	case TypeAssistantMessage:
		var d AssistantMessage
		ok := p.assistantMessage(&d)
		return d, ok
	case TypeToolCall:
		var d ToolCall
		ok := p.object(func(key string) bool {
			switch key {
			case "turn":
				return p.intInto(&d.Turn)
			case "step":
				return p.intInto(&d.Step)
			case "callId":
				return p.stringInto(&d.CallID)
			case "name":
				return p.stringInto(&d.Name)
			case "arguments":
				return p.stringInto(&d.Arguments)
			}
			return false
		})
		return d, ok
	case TypeToolResult:
		var d ToolResult
		ok := p.toolResult(&d)
		return d, ok
	case TypeLlmRetry:
		var d LlmRetry
		ok := p.llmRetry(&d)
		return d, ok
	case TypeLlmRetryStarted:
		var d LlmRetryStarted
		ok := p.object(func(key string) bool {
			switch key {
			case "retryId":
				return p.stringInto(&d.RetryID)
			case "turn":
				return p.intInto(&d.Turn)
			case "step":
				return p.intInto(&d.Step)
			case "retry":
				return p.intInto(&d.Retry)
			}
			return false
		})
		return d, ok
	}
	return nil, false
}

func (p *eventParser) turnStep(turn, step *int) bool {
	return p.object(func(key string) bool {
		switch key {
		case "turn":
			return p.intInto(turn)
		case "step":
			return p.intInto(step)
		}
		return false
	})
}

func (p *eventParser) turnEndReason(r *TurnEndReason) bool {
	return p.object(func(key string) bool {
		switch key {
		case "kind":
			return p.stringInto(&r.Kind)
		case "reason":
			c := &CancelCause{}
			r.Reason = c
			return p.object(func(key string) bool {
				switch key {
				case "kind":
					return p.stringInto(&c.Kind)
				case "reason":
					return p.stringInto(&c.Reason)
				}
				return false
			})
		case "error":
			f := &Failure{}
			r.Error = f
			return p.failure(f)
		}
		return false
	})
}

func (p *eventParser) chunk(c *Chunk) bool {
	return p.object(func(key string) bool {
		switch key {
		case "kind":
			return p.stringInto(&c.Kind)
		case "text":
			return p.stringInto(&c.Text)
		case "callId":
			return p.stringInto(&c.CallID)
		case "name":
			return p.stringInto(&c.Name)
		case "arguments":
			return p.stringInto(&c.Arguments)
		case "finish":
			return p.stringInto((*string)(&c.Finish))
		}
		return false
	})
}

func (p *eventParser) assistantMessage(d *AssistantMessage) bool {
	return p.object(func(key string) bool {
		switch key {
		case "turn":
			return p.intInto(&d.Turn)
		case "step":
			return p.intInto(&d.Step)
		case "message":
			return p.object(func(key string) bool { return key == "blocks" && p.blocks(&d.Message.Blocks) })
		case "finish":
			return p.stringInto((*string)(&d.Finish))
		}
		return false
	})
}

// blocks reads an array of blocks; [] gives an empty, non-nil slice and null a nil one, as
// encoding/json does (the harness writes both).
func (p *eventParser) blocks(out *[]Block) bool {
	p.space()
	if len(p.b)-p.i >= 4 && p.b[p.i:p.i+4] == "null" {
		p.i += 4
		*out = nil
		return true
	}
	if !p.consume('[') {
		return false
	}
	blocks := []Block{}
	p.space()
	if p.consume(']') {
		*out = blocks
		return true
	}
	for {
		var b Block
		if !p.object(func(key string) bool {
			switch key {
			case "type":
				return p.stringInto(&b.Type)
			case "text":
				return p.stringInto(&b.Text)
			case "callId":
				return p.stringInto(&b.CallID)
			case "name":
				return p.stringInto(&b.Name)
			case "arguments":
				return p.stringInto(&b.Arguments)
			}
			return false
		}) {
			return false
		}
		blocks = append(blocks, b)
		p.space()
		if p.consume(']') {
			*out = blocks
			return true
		}
		if !p.consume(',') {
			return false
		}
	}
}

func (p *eventParser) toolResult(d *ToolResult) bool {
	return p.object(func(key string) bool {
		switch key {
		case "turn":
			return p.intInto(&d.Turn)
		case "step":
			return p.intInto(&d.Step)
		case "callId":
			return p.stringInto(&d.CallID)
		case "isError":
			return p.boolInto(&d.IsError)
		case "content":
			return p.stringInto(&d.Content)
		case "error":
			te := &ToolError{}
			d.Error = te
			return p.object(func(key string) bool {
				switch key {
				case "name":
					return p.stringInto(&te.Name)
				case "code":
					return p.stringInto(&te.Code)
				case "message":
					return p.stringInto(&te.Message)
				}
				return false
			})
		}
		return false
	})
}

func (p *eventParser) llmRetry(d *LlmRetry) bool {
	return p.object(func(key string) bool {
		switch key {
		case "retryId":
			return p.stringInto(&d.RetryID)
		case "turn":
			return p.intInto(&d.Turn)
		case "step":
			return p.intInto(&d.Step)
		case "provider":
			return p.stringInto(&d.Provider)
		case "mode":
			return p.stringInto((*string)(&d.Mode))
		case "policyKey":
			return p.stringInto(&d.PolicyKey)
		case "retry":
			return p.intInto(&d.Retry)
		case "maxRetries":
			n := new(int)
			d.MaxRetries = n
			return p.intInto(n)
		case "delayMs":
			return p.floatInto(&d.DelayMs)
		case "failure":
			return p.failure(&d.Failure)
		}
		return false
	})
}

func (p *eventParser) failure(f *Failure) bool {
	return p.object(func(key string) bool {
		switch key {
		case "code":
			return p.stringInto(&f.Code)
		case "message":
			return p.stringInto(&f.Message)
		case "status":
			return p.intInto(&f.Status)
		case "providerRetryAfterMs":
			return p.floatInto(&f.ProviderRetryAfterMs)
		case "requestId":
			return p.stringInto(&f.RequestID)
		}
		return false
	})
}

// object reads an object, handing each key to field, which reads its value; a key it does not
// know (field returns false), or a key seen twice, ends the fast path. Keys of the harness's
// objects are few, so a short list finds repeats.
func (p *eventParser) object(field func(key string) bool) bool {
	p.space()
	if !p.consume('{') {
		return false
	}
	var seen [12]string
	n := 0
	for first := true; ; first = false {
		key, more, ok := p.nextKey(first)
		if !ok {
			return false
		}
		if !more {
			return true
		}
		if slices.Contains(seen[:n], key) {
			return false
		}
		if n == len(seen) {
			return false
		}
		seen[n] = key
		n++
		if !field(key) {
			return false
		}
	}
}

// open reads the opening brace of the event.
func (p *eventParser) open() bool {
	p.space()
	return p.consume('{')
}

// nextKey reads `"key":` (after a comma unless first), or reports the end of the object (more
// false). A key is taken only as plain bytes, without escapes, so that it matches exactly. The
// encoder writes no spacing, so the checks for it come after the byte it usually finds.
func (p *eventParser) nextKey(first bool) (key string, more, ok bool) {
	if p.i >= len(p.b) || p.b[p.i] <= ' ' { // spacing: never the encoder's, so looked for second
		p.space()
	}
	if p.i >= len(p.b) {
		return "", false, false
	}
	switch p.b[p.i] {
	case '}':
		p.i++
		return "", false, true
	case ',':
		if first {
			return "", false, false
		}
		p.i++
		if p.i < len(p.b) && p.b[p.i] == '"' {
			break
		}
		p.space()
	default:
		if !first {
			return "", false, false
		}
	}
	if !p.consume('"') {
		return "", false, false
	}
	start := p.i
	p.i = skipPlain(p.b, p.i)
	if p.i == len(p.b) || p.b[p.i] != '"' { // an escape, a control byte or a non-ASCII byte
		return "", false, false
	}
	key = p.b[start:p.i]
	p.i++
	if p.i < len(p.b) && p.b[p.i] == ':' {
		p.i++
	} else {
		p.space()
		if !p.consume(':') {
			return "", false, false
		}
	}
	if p.i >= len(p.b) || p.b[p.i] <= ' ' {
		p.space()
	}
	return key, true, true
}

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

func (p *eventParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *eventParser) consume(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

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
