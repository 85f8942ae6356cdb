package harness

// The event decoder's fast path reads the lines the harness writes (and any spacing of them)
// without reflection, and gives up, leaving the line to encoding/json, at anything it does not
// read exactly as encoding/json would: a key in another letter case, an unknown or repeated key,
// null, a number that is not a plain integer where an int goes, a key order with data before
// type, a missing field the event needs. So what it accepts, encoding/json accepts with the same
// result, and everything else gets encoding/json's own answer and error message.
// FuzzEventCodecMatchesEncodingJSON holds it to that. Within the fast path, the encoder's own
// spelling is read as a straight line of constant comparisons (p.lit), and any other spelling by
// the general loop over each object's members (fields, with member naming each key by memberKey): see the payload
// readers in jsonl_decode_data.go. Strings are in jsonl_decode_string.go, numbers in
// jsonl_decode_number.go.

// eventParser reads one JSON value at a time from b; every method reports false at anything
// outside the fast path, and the caller then abandons the line.
type eventParser struct {
	b string // the line, copied once: every plain string decoded is a substring of it
	i int
	// slabs, when set, are where the payloads are decoded (a JSONLDecoder's); nil: each payload
	// is a new allocation.
	slabs *payloadSlabs
}

// decodeEventFast decodes a line the fast way; ok is false when encoding/json must decide.
func decodeEventFast(line []byte) (e Event, ok bool) { return decodeEventText(string(line)) }

// decodeEventText is decodeEventFast of a line already copied to a string (of a whole log, say):
// the strings decoded are substrings of it.
func decodeEventText(line string) (e Event, ok bool) {
	ok = decodeEventTextInto(&e, line, nil)
	return e, ok
}

// decodeEventTextInto is decodeEventText into *e (an element of the log's slice, decoded in place
// rather than copied there); on a line not on the fast path it leaves *e zero.
func decodeEventTextInto(e *Event, line string, slabs *payloadSlabs) bool {
	p := eventParser{b: line, slabs: slabs}
	if p.lit(`{"seq":`) && p.int64Into(&e.Seq) && p.lit(`,"type":`) && p.stringInto(&e.Type) && e.Type != "" &&
		p.lit(`,"time":`) && p.int64Into(&e.Time) && p.lit(`,"data":`) && p.dataInto(&e.Data, e.Type) &&
		p.lit(`}`) && p.i == len(p.b) {
		return true // as the encoder spells it: see the payload readers
	}
	p.i = 0
	if decoded, ok := p.event(); ok {
		*e = decoded
		return true
	}
	*e = Event{}
	return false
}

// event reads an event in any spelling, as the payload readers do after a difference.
func (p *eventParser) event() (e Event, ok bool) {
	var seen keySet
	if !p.open() {
		return e, false
	}
	for ok := true; ok; {
		switch p.member(&seen) {
		case keyEnd:
			p.space()
			if p.i != len(p.b) || !seen.has(eventKeys) || e.Type == "" {
				return e, false
			}
			return e, true
		case keySeq:
			e.Seq, ok = p.int64()
		case keyType:
			e.Type, ok = p.string()
		case keyTime:
			e.Time, ok = p.int64()
		case keyData:
			if !seen.has(1 << keyType) { // data before type: which payload is it?
				return e, false
			}
			e.Data, ok = p.data(e.Type)
		default:
			return e, false
		}
	}
	return e, false
}

func (p *eventParser) int64Into(out *int64) bool {
	n, ok := p.int64()
	*out = n
	return ok
}

func (p *eventParser) dataInto(out *EventData, eventType string) bool {
	d, ok := p.data(eventType)
	*out = d
	return ok
}

// eventKeys are the keys every event has.
const eventKeys keySet = 1<<keySeq | 1<<keyType | 1<<keyTime | 1<<keyData

// open reads an object's opening brace.
func (p *eventParser) open() bool {
	p.space()
	return p.consume('{')
}

func (p *eventParser) space() { p.i = skipSpace(p.b, p.i) }

// skipSpace is the index of the first byte from i on that is not JSON spacing (len(b) if none).
func skipSpace(b string, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func (p *eventParser) consume(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}
