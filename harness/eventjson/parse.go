package eventjson

import (
	"strings"

	"github.com/turnsim/turnsim/harness"
)

// The reader of one line is the encoder read backwards: a small recursive-descent parser that
// expects each object's members as appendEvent writes them (the keys in struct order, spelled
// as the json tags spell them, an omitempty member only when it is there, no spacing), so that
// each reader is the list of literals and values its writer appends (parse_payloads.go). Strings,
// numbers and booleans are read with encoding/json's grammar and meaning (parse_values.go).
//
// Anything else reports false, and the caller hands the whole line to encoding/json: another key
// order, spacing, a key in another letter case or with an escape, an unknown or repeated key,
// null, a number that is not a plain integer where an int goes, a missing member. encoding/json
// reads those too, but each in its own way (keys matched case-insensitively, a repeated object
// merged into the first, unknown members refused in data but skipped outside it), and the lines
// the harness writes never have them: so what this reader accepts, encoding/json reads with the
// same result, and what it does not, encoding/json answers.

// parser reads JSON values from s, one after another, from i on.
type parser struct {
	s string
	i int
}

// parseEvent reads a whole line as an event; ok is false when encoding/json must decide.
func parseEvent(line string) (e harness.Event, ok bool) {
	p := parser{s: line}
	ok = p.literal(`{"seq":`) && p.int64(&e.Seq) &&
		p.literal(`,"type":`) && p.string(&e.Type) &&
		p.literal(`,"time":`) && p.int64(&e.Time) &&
		p.literal(`,"data":`) && p.data(e.Type, &e.Data) &&
		p.literal(`}`) && p.i == len(p.s)
	return e, ok
}

// literal reads text if the line goes on with it.
func (p *parser) literal(text string) bool {
	if strings.HasPrefix(p.s[p.i:], text) {
		p.i += len(text)
		return true
	}
	return false
}
