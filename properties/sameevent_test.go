package properties

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
)

// eventDataTypes are the harness's event data types, one of each: sameData writes each out.
var eventDataTypes = []harness.EventData{
	harness.UserMessage{}, harness.InboxPush{}, harness.InboxClaim{}, harness.InboxClear{},
	harness.TurnStart{}, harness.TurnEnd{}, harness.StepStart{}, harness.StepEnd{},
	harness.AssistantChunk{}, harness.AssistantMessage{}, harness.ToolCall{}, harness.ToolResult{},
	harness.LlmRetry{}, harness.LlmRetryStarted{},
}

// sameEvent answers as reflect.DeepEqual does for every data type: on a value with every field
// set against each way of changing one field (every leaf to another value or NaN, every pointer
// to nil, every slice to nil, empty or shorter), each pair both deep-copied and sharing pointers.
// A field the harness adds and sameData does not compare makes a pair DeepEqual tells apart and
// sameEvent does not.
func TestSameEventIsDeepEqual(t *testing.T) {
	for _, zero := range eventDataTypes {
		t.Run(reflect.TypeOf(zero).Name(), func(t *testing.T) {
			base := filled(t, reflect.TypeOf(zero), 1)
			values := append([]reflect.Value{base}, variants(t, base)...)
			differing := 0
			for _, p := range values {
				for _, q := range values {
					for _, qq := range []reflect.Value{q, deepCopy(q)} { // sharing pointers, and not
						a, b := eventOf(p), eventOf(qq)
						want := reflect.DeepEqual(&a, &b)
						require.Equal(t, want, sameEvent(&a, &b), "%#v and %#v", a.Data, b.Data)
						if !want {
							differing++
						}
					}
				}
			}
			assert.Greater(t, differing, len(values), "the variants differ from each other")
			assert.True(t, sameEvent(&harness.Event{Data: base.Interface().(harness.EventData)}, &harness.Event{Data: deepCopy(base).Interface().(harness.EventData)}), "a deep copy")
		})
	}
}

// sameEvent answers as DeepEqual does on the event's own fields, on data of different types or
// none, on data of a type it does not know (a pointer), and on one event given twice.
func TestSameEventIsDeepEqualAcrossTypes(t *testing.T) {
	var data []harness.EventData
	data = append(data, nil)
	for _, zero := range eventDataTypes {
		data = append(data, zero, filled(t, reflect.TypeOf(zero), 1).Interface().(harness.EventData))
	}
	three, alsoThree := 3, 3
	data = append(data,
		&harness.TurnStart{Turn: 1}, &harness.TurnStart{Turn: 1}, &harness.TurnStart{Turn: 2},
		harness.LlmRetry{MaxRetries: &three}, harness.LlmRetry{MaxRetries: &alsoThree},
		harness.AssistantMessage{Message: harness.AssembledMessage{Blocks: []harness.Block{}}})
	for _, a := range data {
		for _, b := range data {
			for _, other := range []harness.Event{{Seq: 1, Type: "t", Time: 5}, {Seq: 2, Type: "t", Time: 5}, {Seq: 1, Type: "u", Time: 5}, {Seq: 1, Type: "t", Time: 6}} {
				x, y := harness.Event{Seq: 1, Type: "t", Time: 5, Data: a}, other
				y.Data = b
				require.Equal(t, reflect.DeepEqual(&x, &y), sameEvent(&x, &y), "%#v and %#v", x, y)
			}
		}
	}
	nan := harness.Event{Seq: 1, Data: harness.LlmRetry{DelayMs: math.NaN()}}
	assert.Equal(t, reflect.DeepEqual(&nan, &nan), sameEvent(&nan, &nan), "one event given twice")
	copied := nan
	assert.Equal(t, reflect.DeepEqual(&nan, &copied), sameEvent(&nan, &copied), "a NaN is not equal to itself")
}

func eventOf(v reflect.Value) harness.Event {
	return harness.Event{Seq: 1, Type: "t", Time: 5, Data: v.Interface().(harness.EventData)}
}

// filled is a value of type t with every field set to something other than its zero value:
// pointers point, slices hold two elements.
func filled(t *testing.T, typ reflect.Type, seed int) reflect.Value {
	v := reflect.New(typ).Elem()
	switch typ.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprint("s", seed))
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(seed))
	case reflect.Float64:
		v.SetFloat(float64(seed) + 0.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(filled(t, typ.Elem(), seed).Addr())
	case reflect.Slice:
		v.Set(reflect.MakeSlice(typ, 2, 2))
		for i := range 2 {
			v.Index(i).Set(filled(t, typ.Elem(), seed+i))
		}
	case reflect.Struct:
		for i := range typ.NumField() {
			v.Field(i).Set(filled(t, typ.Field(i).Type, seed+i))
		}
	default:
		t.Fatalf("filled: a %s field: teach filled and variants its kind, and sameData to compare it", typ)
	}
	return v
}

// variants are v changed in one place each, as described on TestSameEventIsDeepEqual.
func variants(t *testing.T, v reflect.Value) []reflect.Value {
	typ := v.Type()
	with := func(set func(reflect.Value)) reflect.Value {
		w := deepCopy(v)
		set(w)
		return w
	}
	var out []reflect.Value
	switch typ.Kind() {
	case reflect.String:
		out = append(out, with(func(w reflect.Value) { w.SetString(v.String() + "x") }))
	case reflect.Int, reflect.Int64:
		out = append(out, with(func(w reflect.Value) { w.SetInt(v.Int() + 1) }))
	case reflect.Float64:
		out = append(out, with(func(w reflect.Value) { w.SetFloat(v.Float() + 1) }), with(func(w reflect.Value) { w.SetFloat(math.NaN()) }))
	case reflect.Bool:
		out = append(out, with(func(w reflect.Value) { w.SetBool(!v.Bool()) }))
	case reflect.Pointer:
		out = append(out, reflect.Zero(typ))
		for _, e := range variants(t, v.Elem()) {
			p := reflect.New(typ.Elem())
			p.Elem().Set(e)
			out = append(out, p)
		}
	case reflect.Slice:
		out = append(out, reflect.Zero(typ), reflect.MakeSlice(typ, 0, 0), with(func(w reflect.Value) { w.SetLen(w.Len() - 1) }))
		for i := range v.Len() {
			for _, e := range variants(t, v.Index(i)) {
				out = append(out, with(func(w reflect.Value) { w.Index(i).Set(e) }))
			}
		}
	case reflect.Struct:
		for i := range typ.NumField() {
			for _, e := range variants(t, v.Field(i)) {
				out = append(out, with(func(w reflect.Value) { w.Field(i).Set(e) }))
			}
		}
	default:
		t.Fatalf("variants: a %s field", typ)
	}
	return out
}

// deepCopy is v with its pointers and slices copied too, so nothing is shared with v.
func deepCopy(v reflect.Value) reflect.Value {
	w := reflect.New(v.Type()).Elem()
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			w.Set(deepCopy(v.Elem()).Addr())
		}
	case reflect.Slice:
		if !v.IsNil() {
			w.Set(reflect.MakeSlice(v.Type(), v.Len(), v.Len()))
			for i := range v.Len() {
				w.Index(i).Set(deepCopy(v.Index(i)))
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			w.Field(i).Set(deepCopy(v.Field(i)))
		}
	default:
		w.Set(v)
	}
	return w
}
