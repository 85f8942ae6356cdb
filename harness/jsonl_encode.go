package harness

import (
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// The event encoder writes exactly the bytes encoding/json's Marshal writes for an Event, by
// hand: fields in struct order, omitempty where the struct says so, strings escaped the same way
// (HTML characters, U+2028 and U+2029, invalid UTF-8 as \ufffd), numbers formatted the same way.
// It costs about a tenth of Marshal's time and no allocation, where Marshal walks every field by
// reflection. A payload it does not know (another EventData implementation, a pointer) or a
// value Marshal refuses (a NaN delay) goes to Marshal, so the bytes and the errors are always
// Marshal's. FuzzEventCodecMatchesEncodingJSON holds it to that.

// appendEvent appends e's JSON form; ok is false when e needs encoding/json.
func appendEvent(dst []byte, e Event) (out []byte, ok bool) {
	dst = append(dst, `{"seq":`...)
	dst = strconv.AppendInt(dst, e.Seq, 10)
	dst = append(dst, `,"type":`...)
	dst = appendJSONString(dst, e.Type)
	dst = append(dst, `,"time":`...)
	dst = strconv.AppendInt(dst, e.Time, 10)
	dst = append(dst, `,"data":`...)
	if dst, ok = appendData(dst, e.Data); !ok {
		return dst, false
	}
	return append(dst, '}'), true
}

// appendData appends a payload of one of the harness's fourteen value types.
func appendData(b []byte, data EventData) ([]byte, bool) {
	switch d := data.(type) {
	case UserMessage:
		b = append(b, `{"message":{"id":`...)
		b = appendJSONString(b, d.Message.ID)
		b = append(b, `,"text":`...)
		b = appendJSONString(b, d.Message.Text)
		return append(b, "}}"...), true
	case InboxPush:
		b = append(b, `{"lane":`...)
		b = appendJSONString(b, string(d.Lane))
		b = append(b, `,"kind":`...)
		b = appendJSONString(b, string(d.Kind))
		b = append(b, `,"messageId":`...)
		b = appendJSONString(b, d.MessageID)
		return append(b, '}'), true
	case InboxClaim:
		b = appendTurnStep(b, d.Turn, d.Step)
		b = append(b, `,"lane":`...)
		b = appendJSONString(b, string(d.Lane))
		b = append(b, `,"messageId":`...)
		b = appendJSONString(b, d.MessageID)
		return append(b, '}'), true
	case InboxClear:
		b = append(b, `{"lane":`...)
		b = appendJSONString(b, string(d.Lane))
		b = append(b, `,"messageId":`...)
		b = appendJSONString(b, d.MessageID)
		return append(b, '}'), true
	case TurnStart:
		b = append(b, `{"turn":`...)
		b = strconv.AppendInt(b, int64(d.Turn), 10)
		return append(b, '}'), true
	case TurnEnd:
		b = append(b, `{"turn":`...)
		b = strconv.AppendInt(b, int64(d.Turn), 10)
		b = append(b, `,"reason":`...)
		var ok bool
		if b, ok = appendTurnEndReason(b, d.Reason); !ok {
			return b, false
		}
		return append(b, '}'), true
	case StepStart:
		return append(appendTurnStep(b, d.Turn, d.Step), '}'), true
	case StepEnd:
		return append(appendTurnStep(b, d.Turn, d.Step), '}'), true
	case AssistantChunk:
		b = appendTurnStep(b, d.Turn, d.Step)
		b = append(b, `,"chunk":`...)
		b = appendChunk(b, d.Chunk)
		return append(b, '}'), true
	case AssistantMessage:
		b = appendTurnStep(b, d.Turn, d.Step)
		b = append(b, `,"message":{"blocks":`...)
		b = appendBlocks(b, d.Message.Blocks)
		b = append(b, `},"finish":`...)
		b = appendJSONString(b, string(d.Finish))
		return append(b, '}'), true
	case ToolCall:
		b = appendTurnStep(b, d.Turn, d.Step)
		b = append(b, `,"callId":`...)
		b = appendJSONString(b, d.CallID)
		b = append(b, `,"name":`...)
		b = appendJSONString(b, d.Name)
		b = append(b, `,"arguments":`...)
		b = appendJSONString(b, d.Arguments)
		return append(b, '}'), true
	case ToolResult:
		return appendToolResult(b, d), true
	case LlmRetry:
		return appendLlmRetry(b, d)
	case LlmRetryStarted:
		b = append(b, `{"retryId":`...)
		b = appendJSONString(b, d.RetryID)
		b = append(b, `,"turn":`...)
		b = strconv.AppendInt(b, int64(d.Turn), 10)
		b = append(b, `,"step":`...)
		b = strconv.AppendInt(b, int64(d.Step), 10)
		b = append(b, `,"retry":`...)
		b = strconv.AppendInt(b, int64(d.Retry), 10)
		return append(b, '}'), true
	}
	return b, false
}

// appendTurnStep opens an object with its turn and step fields.
func appendTurnStep(b []byte, turn, step int) []byte {
	b = append(b, `{"turn":`...)
	b = strconv.AppendInt(b, int64(turn), 10)
	b = append(b, `,"step":`...)
	return strconv.AppendInt(b, int64(step), 10)
}

func appendTurnEndReason(b []byte, r TurnEndReason) ([]byte, bool) {
	b = append(b, `{"kind":`...)
	b = appendJSONString(b, r.Kind)
	if r.Reason != nil {
		b = append(b, `,"reason":{"kind":`...)
		b = appendJSONString(b, r.Reason.Kind)
		if r.Reason.Reason != "" {
			b = append(b, `,"reason":`...)
			b = appendJSONString(b, r.Reason.Reason)
		}
		b = append(b, '}')
	}
	if r.Error != nil {
		b = append(b, `,"error":`...)
		var ok bool
		if b, ok = appendFailure(b, *r.Error); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

func appendChunk(b []byte, c Chunk) []byte {
	b = append(b, `{"kind":`...)
	b = appendJSONString(b, c.Kind)
	b = appendOptionalString(b, `,"text":`, c.Text)
	b = appendOptionalString(b, `,"callId":`, c.CallID)
	b = appendOptionalString(b, `,"name":`, c.Name)
	b = appendOptionalString(b, `,"arguments":`, c.Arguments)
	b = appendOptionalString(b, `,"finish":`, string(c.Finish))
	return append(b, '}')
}

// appendBlocks writes a nil slice as null and an empty one as [], as Marshal does.
func appendBlocks(b []byte, blocks []Block) []byte {
	if blocks == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, block := range blocks {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":`...)
		b = appendJSONString(b, block.Type)
		b = appendOptionalString(b, `,"text":`, block.Text)
		b = appendOptionalString(b, `,"callId":`, block.CallID)
		b = appendOptionalString(b, `,"name":`, block.Name)
		b = appendOptionalString(b, `,"arguments":`, block.Arguments)
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendToolResult(b []byte, r ToolResult) []byte {
	b = appendTurnStep(b, r.Turn, r.Step)
	b = append(b, `,"callId":`...)
	b = appendJSONString(b, r.CallID)
	b = append(b, `,"isError":`...)
	b = strconv.AppendBool(b, r.IsError)
	b = append(b, `,"content":`...)
	b = appendJSONString(b, r.Content)
	if r.Error != nil {
		b = append(b, `,"error":{"name":`...)
		b = appendJSONString(b, r.Error.Name)
		b = append(b, `,"code":`...)
		b = appendJSONString(b, r.Error.Code)
		b = append(b, `,"message":`...)
		b = appendJSONString(b, r.Error.Message)
		b = append(b, '}')
	}
	return append(b, '}')
}

func appendLlmRetry(b []byte, r LlmRetry) ([]byte, bool) {
	b = append(b, `{"retryId":`...)
	b = appendJSONString(b, r.RetryID)
	b = append(b, `,"turn":`...)
	b = strconv.AppendInt(b, int64(r.Turn), 10)
	b = append(b, `,"step":`...)
	b = strconv.AppendInt(b, int64(r.Step), 10)
	b = append(b, `,"provider":`...)
	b = appendJSONString(b, r.Provider)
	b = append(b, `,"mode":`...)
	b = appendJSONString(b, string(r.Mode))
	b = append(b, `,"policyKey":`...)
	b = appendJSONString(b, r.PolicyKey)
	b = append(b, `,"retry":`...)
	b = strconv.AppendInt(b, int64(r.Retry), 10)
	if r.MaxRetries != nil {
		b = append(b, `,"maxRetries":`...)
		b = strconv.AppendInt(b, int64(*r.MaxRetries), 10)
	}
	b = append(b, `,"delayMs":`...)
	var ok bool
	if b, ok = appendJSONFloat(b, r.DelayMs); !ok {
		return b, false
	}
	b = append(b, `,"failure":`...)
	if b, ok = appendFailure(b, r.Failure); !ok {
		return b, false
	}
	return append(b, '}'), true
}

func appendFailure(b []byte, f Failure) ([]byte, bool) {
	b = append(b, `{"code":`...)
	b = appendJSONString(b, f.Code)
	b = append(b, `,"message":`...)
	b = appendJSONString(b, f.Message)
	if f.Status != 0 {
		b = append(b, `,"status":`...)
		b = strconv.AppendInt(b, int64(f.Status), 10)
	}
	if f.ProviderRetryAfterMs != 0 {
		b = append(b, `,"providerRetryAfterMs":`...)
		var ok bool
		if b, ok = appendJSONFloat(b, f.ProviderRetryAfterMs); !ok {
			return b, false
		}
	}
	if f.RequestID != "" {
		b = append(b, `,"requestId":`...)
		b = appendJSONString(b, f.RequestID)
	}
	return append(b, '}'), true
}

// appendOptionalString writes key and s unless s is empty (omitempty).
func appendOptionalString(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return appendJSONString(append(b, key...), s)
}

// appendJSONFloat formats f as Marshal does (ES6 number to string: %f, or %e with a short
// exponent outside [1e-6, 1e21)); NaN and infinities are Marshal's to refuse.
func appendJSONFloat(b []byte, f float64) ([]byte, bool) {
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

const hexDigits = "0123456789abcdef"

// jsonSafe marks the ASCII bytes encoding/json writes as they are (HTML escaping on): one load per
// byte instead of six comparisons, in the loop every string of every event goes through.
var jsonSafe = func() (safe [utf8.RuneSelf]bool) {
	for c := range safe {
		safe[c] = c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return safe
}()

// appendJSONString quotes s as Marshal does with HTML escaping on: \" \\ \b \f \n \r \t, other
// control bytes and < > & as \u00XX, U+2028 and U+2029 escaped, invalid UTF-8 as \ufffd.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i = skipSafe(s, i); i == len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf { // an ASCII byte skipSafe stopped at: one to escape
			dst = append(dst, s[start:i]...)
			switch c {
			case '\\', '"':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// skipSafe is the index of the first byte from i on that Marshal does not write as it is: not
// jsonSafe, or not ASCII (len(s) if none). Like the decoder's skipPlain it reads eight bytes a
// word: the strings of every event pass through here, twice a simulated schedule (the store's
// line and the log's digest), and a table load and compare per byte was the encoder's largest
// cost. The last bytes, fewer than eight, go one by one.
func skipSafe(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		if m := notSafeMarks(wordAt(s, i)); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(s) && s[i] < utf8.RuneSelf && jsonSafe[s[i]] {
		i++
	}
	return i
}

// notSafeMarks is notPlainMarks with HTML's three marked too: a byte of (w|4)^'&' is zero only at
// '"' or '&', and of (w|2)^'>' only at '<' or '>', so one subtraction each finds a pair. As there,
// the lowest mark is exact (a borrow runs only upwards from a marked byte), and a non-ASCII byte
// is marked by its own high bit.
func notSafeMarks(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quoteOrAmpersand := ((w | ones*0x04) ^ ones*'&') - ones
	angleBracket := ((w | ones*0x02) ^ ones*'>') - ones
	return notPlainMarks(w) | (quoteOrAmpersand|angleBracket)&highs
}
