package harness

import (
	"encoding/json"
	"strings"
	"testing"
)

// The one-pass unquoting of strings with escapes (stringUnquoting) and its hand-over to
// stringRest give encoding/json's value and verdict, with a JSONLDecoder's text bytes and
// without, at each place the hand-over happens: a \u escape or a byte not ASCII after an escape,
// bad syntax, a value longer than the stack buffer, the end of the text within a word.
func TestStringUnquotingIsEncodingJSON(t *testing.T) {
	long := strings.Repeat(`ab\"cd`, 60) // longer than the stack buffer
	texts := []string{
		`"\""`, `"a\"b"`, `"\\\/\b\f\n\r\t"`, `"{\"path\":\"a/b.txt\",\"n\":1}"`,
		`"x\"\u00e9y"`, `"x\"\ud83d\ude00"`, `"x\"\ud83d"`, `"x\"é"`, "\"x\\\"\xff\"",
		`"x\"` + "\x01" + `"`, `"x\q"`, `"x\"`, `"x\`, `"abcdefgh\"ijklmnopq\"rstuvwx"`,
		`"` + long + `"`, `"` + long[:248] + `"`, `"` + long[:250] + `\u0041"`,
		`"` + strings.Repeat("a", 300) + `\"b"`, `"` + strings.Repeat("a", 255) + `\"b"`, `"` + strings.Repeat("a", 256) + `\"b"`,
	}
	for _, text := range texts {
		for _, tail := range []string{"", "}}", `,"more":"text to the end of the line"}`} {
			var want string
			dec := json.NewDecoder(strings.NewReader(text + tail))
			wantErr := dec.Decode(&want)
			for _, slabs := range []*payloadSlabs{nil, {}} {
				p := eventParser{b: text + tail, slabs: slabs}
				got, ok := p.string()
				if ok != (wantErr == nil) || ok && (got != want || int64(p.i) != dec.InputOffset()) {
					t.Errorf("string of %q (decoder %v): %q, %v at %d; encoding/json: %q, %v", text+tail, slabs != nil, got, ok, p.i, want, wantErr)
				}
			}
		}
	}
}

// Strings unquoted one after another into a decoder's text bytes keep their values: each one's
// room after the text bytes is taken by the next only past the value's length.
func TestStringUnquotingKeepsEarlierValues(t *testing.T) {
	p := eventParser{b: `"a\"b" "c\"dd" "\"` + strings.Repeat("e", 300) + `"`, slabs: &payloadSlabs{}}
	var got []string
	for range 3 {
		s, ok := p.string()
		if !ok {
			t.Fatalf("string at %d refused", p.i)
		}
		got = append(got, s)
		p.space()
	}
	want := []string{`a"b`, `c"dd`, `"` + strings.Repeat("e", 300)}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("string %d: %q, want %q", i, got[i], want[i])
		}
	}
}
