package jsonlimit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Within no limits, a document passes exactly when encoding/json takes it as one value.
func TestValidityAgreesWithEncodingJSON(t *testing.T) {
	docs := []string{
		`{}`, `[]`, `0`, `-0`, `1.5e-3`, `-12E+4`, `"a\u00e9\n"`, `true`, `false`, `null`, ` { "a" : [1, {"b": null}] } `,
		`{"a":1,}`, `[1,]`, `01`, `1.`, `.5`, `1e`, `-`, `"\x"`, "\"\x01\"", `{"a" 1}`, `{1:2}`, `[1 2]`, `tru`, `nul`,
		`{} {}`, `[`, `"abc`, `{"a":`, ``, `  `, `+1`, `"\u12G4"`, `[true, false, null, "\ud83d\ude00"]`, `{"a":1}x`,
	}
	for _, doc := range docs {
		t.Run(doc, func(t *testing.T) {
			err := CheckBytes([]byte(doc), Limits{})
			assert.Equal(t, json.Valid([]byte(doc)), err == nil, "%v", err)
			var e *Error
			if errors.As(err, &e) {
				assert.False(t, e.Limit, "no limit was set: only bad JSON fails")
			}
			// The reader form reads the same, whatever the reader's chunks.
			readerErr := Check(iotest.OneByteReader(strings.NewReader(doc)), Limits{})
			assert.Equal(t, err == nil, readerErr == nil, "%v vs %v", err, readerErr)
		})
	}
}

func FuzzValidityAgreesWithEncodingJSON(f *testing.F) {
	for _, seed := range []string{`{"a":[1,2,{"b":"c"}]}`, `[1e5, -0.5, "x\"y"]`, `{"a":1,"a":2}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		err := CheckBytes(doc, Limits{Depth: 10000})
		if json.Valid(doc) != (err == nil) {
			t.Fatalf("json.Valid %v, CheckBytes %v", json.Valid(doc), err)
		}
	})
}

func TestLimitsAreNamedWithTheirOffset(t *testing.T) {
	cases := []struct {
		doc  string
		lim  Limits
		says string
	}{
		{`[{},{},{},{}]`, Limits{Elements: 3}, "array of more than 3 elements"},
		{`{"a":1,"b":2}`, Limits{Elements: 1}, "object of more than 1 members"},
		{`[[[[1]]]]`, Limits{Depth: 3}, "nested deeper than 3"},
		{`[[],[],[]]`, Limits{Containers: 3}, "more than 3 arrays and objects"},
		{`["abcdef"]`, Limits{StringBytes: 5}, "a string longer than 5 bytes"},
		{`[123456]`, Limits{StringBytes: 5}, "a number longer than 5 bytes"},
		{`{"a":1,"\u0061":2}`, Limits{DuplicateKeys: true}, `the key "a" appears twice in one object`},
		{`[1,2,3]`, Limits{Bytes: 4}, "longer than 4 bytes"},
	}
	for _, c := range cases {
		t.Run(c.says, func(t *testing.T) {
			for _, err := range []error{CheckBytes([]byte(c.doc), c.lim), Check(strings.NewReader(c.doc), c.lim)} {
				var e *Error
				require.ErrorAs(t, err, &e)
				assert.Contains(t, e.Error(), c.says)
				assert.Positive(t, e.Offset)
				assert.True(t, e.Limit, "a broken limit, not bad JSON")
			}
		})
	}
	assert.NoError(t, CheckBytes([]byte(`[{"a":1},{"a":2}]`), Limits{DuplicateKeys: true}), "one key per object, not per document")
	assert.NoError(t, CheckBytes([]byte(`{"a":{"a":{"b":1},"b":2},"b":3}`), Limits{DuplicateKeys: true}), "nested objects have keys of their own")
	var many strings.Builder
	many.WriteString("{")
	for i := range 100 {
		fmt.Fprintf(&many, `"k%d":%d,`, i, i)
	}
	assert.NoError(t, CheckBytes([]byte(many.String()+`"last":0}`), Limits{DuplicateKeys: true}))
	assert.ErrorContains(t, CheckBytes([]byte(many.String()+`"k7":0}`), Limits{DuplicateKeys: true}), `the key "k7" appears twice`, "past the listed keys, in the set")
	assert.ErrorContains(t, CheckBytes([]byte("{\"\xff\":1,\"\xfe\":2}"), Limits{DuplicateKeys: true}), "appears twice", "both read as U+FFFD")
	assert.NoError(t, CheckBytes([]byte(`[1,2,3]`), Limits{Elements: 3}), "at the limit is within it")
}

// A limit stops the reading where it is broken: the rest of a huge document is never read.
func TestALimitStopsReading(t *testing.T) {
	huge := io.MultiReader(strings.NewReader("["), &endless{chunk: []byte("{},")})
	err := Check(huge, Limits{Elements: 10_000})
	require.ErrorContains(t, err, "array of more than 10000 elements")
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Less(t, e.Offset, int64(40_000))
}

// endless is a reader of the same chunk forever.
type endless struct{ chunk []byte }

func (r *endless) Read(p []byte) (int, error) {
	n := 0
	for n+len(r.chunk) <= len(p) {
		n += copy(p[n:], r.chunk)
	}
	return n, nil
}

func TestAReadErrorIsReturned(t *testing.T) {
	broken := errors.New("disk on fire")
	err := Check(io.MultiReader(strings.NewReader(`[1,`), iotest.ErrReader(broken)), Limits{})
	assert.ErrorIs(t, err, broken)
}

// Checking allocates nothing per value: a document of a million values costs what a small one
// does.
func TestCheckingAllocatesNothingPerValue(t *testing.T) {
	doc := append([]byte("["), bytes.Repeat([]byte(`{"a":[1,"x",true]},`), 100_000)...)
	doc = append(doc, "null]"...)
	allocs := testing.AllocsPerRun(3, func() {
		if err := Check(bytes.NewReader(doc), Limits{}); err != nil {
			t.Fatal(err)
		}
	})
	assert.Less(t, allocs, 10.0)
}

// TopKey sees the top-level object's keys, unescaped, and can stop the reading at one.
func TestTopKeys(t *testing.T) {
	var seen []string
	lim := Limits{TopKey: func(key string) error {
		if key == "bad" {
			return errors.New(`unknown field "bad"`)
		}
		seen = append(seen, key)
		return nil
	}}
	require.NoError(t, CheckBytes([]byte(`{"a":{"inner":1},"\u0062":[{"c":2}]}`), lim))
	assert.Equal(t, []string{"a", "b"}, seen, "nested keys are not top-level keys")
	err := CheckBytes([]byte(`{"x":1,"bad":2,"after":3}`), lim)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.True(t, e.Limit)
	assert.Equal(t, `unknown field "bad"`, e.Reason)
}
