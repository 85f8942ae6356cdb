package properties

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/turnsim/turnsim/harness"
)

func checkLogReplays(x *index, v *violations) {
	events, err := readBackJSONL(x.run)
	if err != nil {
		v.add(0, -1, "the JSON Lines log does not decode: %v", err)
		return
	}
	if len(events) != len(x.run.Log) {
		v.add(0, -1, "the JSON Lines log holds %d events, the session %d", len(events), len(x.run.Log))
		return
	}
	for i := range events {
		if !sameEvent(&events[i], &x.run.Log[i]) {
			v.add(events[i].Seq, events[i].Time, "event %s reads back differently from what was appended", events[i].Type)
			return
		}
	}
	if err := harness.ValidateLog(events); err != nil {
		var seq int64
		if ie, ok := err.(*harness.InvariantError); ok {
			seq = ie.Seq
		}
		v.add(seq, -1, "the log read back fails the invariant layer: %v", err)
	}
}

func checkAppendsAccepted(x *index, v *violations) {
	for _, e := range x.run.Trace.AgentErrors {
		if e.Invariant != "" && (x.brokenAtMs < 0 || e.AtMs < x.brokenAtMs) {
			v.add(0, e.AtMs, "turn %d: the invariant layer refused an event (rule %s): %s", e.Turn, e.Invariant, e.Err)
		}
	}
}

func checkRunCompletes(x *index, v *violations) {
	for _, f := range x.run.Trace.Findings {
		v.add(0, x.run.Trace.EndMs, "%s", strings.ReplaceAll(f, "\n", "; "))
	}
}

// readBackJSONL decodes r.JSONL (harness.DecodeJSONL: ReadJSONL's answer, faster), taking r.ReadBack's events for the lines it decoded already.
func readBackJSONL(r *Run) ([]harness.Event, error) {
	rb := r.ReadBack
	if rb == nil || len(rb.Bytes) == 0 || !bytes.HasPrefix(r.JSONL, rb.Bytes) {
		return harness.DecodeJSONL(r.JSONL)
	}
	rest, err := harness.DecodeJSONL(r.JSONL[len(rb.Bytes):])
	if err != nil {
		return harness.DecodeJSONL(r.JSONL) // the whole log again: the error names its line
	}
	return append(slices.Clip(rb.Events), rest...), nil
}

// sameEvent is reflect.DeepEqual(a, b), faster for the usual event: when the data's type holds
// no pointer, slice, map or interface (plain), == on it is DeepEqual.
func sameEvent(a, b *harness.Event) bool {
	if a.Seq != b.Seq || a.Type != b.Type || a.Time != b.Time {
		return false
	}
	ta := reflect.TypeOf(a.Data)
	if ta == nil || ta != reflect.TypeOf(b.Data) || !plainType(ta) {
		return reflect.DeepEqual(a, b)
	}
	return a.Data == b.Data
}

// plainTypes caches plainType's answer for each type.
var plainTypes sync.Map // reflect.Type → bool

// plainType reports whether == on values of t compares exactly what reflect.DeepEqual does:
// t is built of booleans, numbers, strings, arrays and structs of them only.
func plainType(t reflect.Type) bool {
	if plain, ok := plainTypes.Load(t); ok {
		return plain.(bool)
	}
	plain := plainKinds(t)
	plainTypes.Store(t, plain)
	return plain
}

func plainKinds(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return true
	case reflect.Array:
		return plainKinds(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !plainKinds(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}
