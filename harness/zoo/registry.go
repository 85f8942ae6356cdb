package zoo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/turnsim/turnsim/harness"
)

// family is one entry of the registry: a name, what it is, and how to build it from JSON.
type family struct {
	name    string
	summary string
	build   func(raw json.RawMessage) (harness.RetryStrategy, error)
}

// families lists the zoo in the order Names gives.
var families = []family{
	{"none", "retry at once (Brooker's no-backoff baseline)", func(raw json.RawMessage) (harness.RetryStrategy, error) {
		p := DefaultNoneParams()
		if err := decodeBudgeted("none", raw, &p, &p.MaxRetries, &p.Always); err != nil {
			return nil, err
		}
		return NewNone(p)
	}},
	{"constant", "a fixed delay: no backoff, no jitter", func(raw json.RawMessage) (harness.RetryStrategy, error) {
		p := DefaultConstantParams()
		if err := decodeBudgeted("constant", raw, &p, &p.MaxRetries, &p.Always); err != nil {
			return nil, err
		}
		return NewConstant(p)
	}},
	backoffFamily(FormulaExponential, "min(cap, base·2^(n-1)), no jitter (Brooker)"),
	backoffFamily(FormulaFullJitter, "random(0, min(cap, base·2^(n-1))) (Brooker)"),
	backoffFamily(FormulaEqualJitter, "t/2 + random(0, t/2), t = min(cap, base·2^(n-1)) (Brooker)"),
	backoffFamily(FormulaDecorrelated, "min(cap, random(base, previous·3)) (Brooker)"),
	{"sdk", "the Anthropic/OpenAI SDKs: 2 retries, 0.5 s·2^(n-1) to 8 s, ×(0.75, 1], Retry-After ≤ 60 s", func(raw json.RawMessage) (harness.RetryStrategy, error) {
		p := DefaultSDKParams()
		if err := decodeBudgeted("sdk", raw, &p, &p.MaxRetries, &p.Always); err != nil {
			return nil, err
		}
		return NewSDK(p)
	}},
	{"grpc-throttle", "gRPC retry throttling (gRFC A6): 10 tokens, 0.1 per success, no retry at half", func(raw json.RawMessage) (harness.RetryStrategy, error) {
		p := DefaultGRPCParams()
		if _, err := decode("grpc-throttle", raw, &p); err != nil {
			return nil, err
		}
		return NewGRPCThrottle(p)
	}},
	{"aws-quota", "AWS SDK standard mode: 3 attempts, a 500-token retry quota (5, 10 per timeout)", func(raw json.RawMessage) (harness.RetryStrategy, error) {
		p := DefaultAWSParams()
		if _, err := decode("aws-quota", raw, &p); err != nil {
			return nil, err
		}
		return NewAWSQuota(p)
	}},
	{"sre-adaptive", "Google SRE adaptive client throttling (K = 2, 2 min), full-jitter backoff", func(raw json.RawMessage) (harness.RetryStrategy, error) {
		p := DefaultSREParams()
		if err := decodeBudgeted("sre-adaptive", raw, &p, &p.MaxRetries, &p.Always); err != nil {
			return nil, err
		}
		return NewSREAdaptive(p)
	}},
	seedFamily("seed-default", "the seed's default policy: normal mode, 500 ms to 10 s, ±10 %, 2 retries", harness.DefaultRetryPolicy),
	seedFamily("seed-always", "the seed's default policy in always mode", SeedAlwaysPolicy),
}

func backoffFamily(formula Formula, summary string) family {
	name := string(formula)
	return family{name, summary, func(raw json.RawMessage) (harness.RetryStrategy, error) {
		p := DefaultBackoffParams()
		if err := decodeBudgeted(name, raw, &p, &p.MaxRetries, &p.Always); err != nil {
			return nil, err
		}
		return NewBackoff(formula, p)
	}}
}

func seedFamily(name, summary string, defaults func() harness.RetryPolicy) family {
	return family{name, summary, func(raw json.RawMessage) (harness.RetryStrategy, error) {
		p := defaults()
		if _, err := decode(name, raw, &p); err != nil {
			return nil, err
		}
		if err := p.Validate(); err != nil {
			var policyErr *harness.PolicyError
			if errors.As(err, &policyErr) {
				return nil, &ParamsError{name, policyErr.Field, policyErr.Reason}
			}
			return nil, &ParamsError{name, "", err.Error()}
		}
		return p.Strategy(), nil
	}}
}

// Names lists the zoo's strategies: Brooker's family, the SDKs', gRPC's, AWS's, the SRE book's
// and the seed's.
func Names() []string {
	names := make([]string, len(families))
	for i, f := range families {
		names[i] = f.name
	}
	return names
}

// Summary says in a line what the named strategy does ("" for an unknown name).
func Summary(name string) string {
	for _, f := range families {
		if f.name == name {
			return f.summary
		}
	}
	return ""
}

// New builds the named strategy from JSON parameters: nil (or null, or {}) gives the published
// defaults; the fields given replace them. An unknown name or field, a value of the wrong type,
// a value Validate refuses: an error that names it (a *ParamsError for a field). Every call
// returns a fresh instance, with its own shared state (a full token bucket, say).
func New(name string, params json.RawMessage) (harness.RetryStrategy, error) {
	for _, f := range families {
		if f.name == name {
			return f.build(params)
		}
	}
	return nil, fmt.Errorf("zoo: unknown strategy %q (known: %s)", name, strings.Join(Names(), ", "))
}

// ParseParams reads a parameter file, {"full-jitter": {"baseMs": 5, "capMs": 2000}, ...}: one
// object per family, every one checked by building it, so a bad file is refused whole, with an
// error naming the family and the field.
func ParseParams(data []byte) (map[string]json.RawMessage, error) {
	if err := syntaxCheck("parameters", data); err != nil {
		return nil, err
	}
	var byName map[string]json.RawMessage
	if err := json.Unmarshal(data, &byName); err != nil || byName == nil {
		return nil, errors.New(`zoo: parameters: want one JSON object, {"family": {parameters}, ...}`)
	}
	names := make([]string, 0, len(byName))
	for name := range byName {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if !slices.Contains(Names(), name) {
			return nil, fmt.Errorf("zoo: parameters: unknown strategy %q (known: %s)", name, strings.Join(Names(), ", "))
		}
		if bytes.Equal(bytes.TrimSpace(byName[name]), []byte("null")) { // would keep the defaults silently
			return nil, &ParamsError{name, "", "null is not parameters: give a JSON object of fields, or leave the strategy out for its defaults"}
		}
		if _, err := New(name, byName[name]); err != nil {
			return nil, err
		}
	}
	return byName, nil
}

// decodeBudgeted decodes like decode; when the parameters switch on always mode without naming
// maxRetries, the default budget is dropped (always mode has none).
func decodeBudgeted(name string, raw json.RawMessage, params any, maxRetries *int, always *bool) error {
	present, err := decode(name, raw, params)
	if err != nil {
		return err
	}
	if *always && !present["maxRetries"] {
		*maxRetries = 0
	}
	return nil
}

// decode overlays the JSON object raw on params (which hold the defaults). Field names must match
// exactly (encoding/json alone would accept "basems" for "baseMs"). It returns the fields given.
func decode(name string, raw json.RawMessage, params any) (map[string]bool, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return map[string]bool{}, nil
	}
	if err := syntaxCheck(name, trimmed); err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &fields); err != nil || fields == nil {
		return nil, &ParamsError{name, "", "parameters must be a JSON object of fields"}
	}
	known := jsonFields(params)
	present := map[string]bool{}
	for field := range fields {
		if !slices.Contains(known, field) {
			return nil, &ParamsError{name, field, "unknown field (known: " + strings.Join(known, ", ") + ")"}
		}
		if bytes.Equal(bytes.TrimSpace(fields[field]), []byte("null")) {
			return nil, &ParamsError{name, field, "null is not a value: give one, or leave the field out for its default"}
		}
		present[field] = true
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(params); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			if number, isNumber := strings.CutPrefix(typeErr.Value, "number "); isNumber && kindName(typeErr.Type) == "a number" {
				return nil, &ParamsError{name, typeErr.Field, fmt.Sprintf("%s is out of range for %s", number, kindName(typeErr.Type))}
			}
			return nil, &ParamsError{name, typeErr.Field, fmt.Sprintf("got %s, want %s", typeErr.Value, kindName(typeErr.Type))}
		}
		return nil, &ParamsError{name, "", err.Error()}
	}
	return present, nil
}

// syntaxCheck refuses text that is not JSON, naming the field (as a dotted path) where the
// reading stopped: a NaN or Infinity, which JSON has no numbers for, most often.
func syntaxCheck(name string, data []byte) error {
	if json.Valid(data) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	type level struct {
		object    bool
		expectKey bool
		key       string
	}
	var stack []level
	path := func() string {
		var keys []string
		for _, l := range stack {
			if l.object && l.key != "" {
				keys = append(keys, l.key)
			}
		}
		return strings.Join(keys, ".")
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			reason := "not valid JSON"
			if err.Error() != "EOF" {
				reason += ": " + err.Error()
			}
			return &ParamsError{name, path(), reason + " (NaN and Infinity are not JSON numbers)"}
		}
		top := len(stack) - 1
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if top >= 0 && stack[top].object {
					stack[top].expectKey = true
				}
				stack = append(stack, level{object: t == '{', expectKey: t == '{'})
			case '}', ']':
				stack = stack[:top]
			}
		case string:
			if top >= 0 && stack[top].object && stack[top].expectKey {
				stack[top].key, stack[top].expectKey = t, false
				continue
			}
			if top >= 0 && stack[top].object {
				stack[top].expectKey = true
			}
		default:
			if top >= 0 && stack[top].object {
				stack[top].expectKey = true
			}
		}
	}
}

// jsonFields lists the JSON names of a params struct's fields.
func jsonFields(params any) []string {
	t := reflect.TypeOf(params)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var names []string
	for i := range t.NumField() {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if tag != "" && tag != "-" {
			names = append(names, tag)
		}
	}
	return names
}

// kindName says what JSON value a Go type takes.
func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "a list"
	}
	return t.String()
}
