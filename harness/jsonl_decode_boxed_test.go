package harness

import (
	"reflect"
	"strings"
	"testing"
)

// boxed writes a payload's address into an interface's data word, which is right only for types
// Go stores behind a pointer. A type that is itself pointer-shaped (a pointer, map, channel or
// func, or a struct or one-element array holding just one of those) is stored in the data word
// directly, and boxed would then make an interface whose value is the slab slot's address: memory
// read as the wrong type. This holds every type the slabs hold to that rule, so a payload type
// changed to a single pointer field fails here instead of corrupting memory.
func TestSlabTypesAreNotPointerShaped(t *testing.T) {
	slabs := reflect.TypeFor[payloadSlabs]()
	n := 0
	for i := range slabs.NumField() {
		f := slabs.Field(i)
		if !strings.HasPrefix(f.Type.Name(), "slab[") {
			continue
		}
		items, ok := f.Type.FieldByName("items")
		if !ok {
			t.Fatalf("%s: slab has no items field", f.Name)
		}
		elem := items.Type.Elem()
		if pointerShaped(elem) {
			t.Errorf("%s: %v is pointer-shaped: boxed cannot hold it in a slab", f.Name, elem)
		}
		n++
	}
	if n < 14 {
		t.Fatalf("found %d slabs, want at least the 14 payload types'", n)
	}
	// The rule itself, on types that are and are not pointer-shaped.
	type onePointer struct{ p *int }
	type pointerAndInt struct {
		p *int
		n int
	}
	for typ, want := range map[reflect.Type]bool{
		reflect.TypeFor[*int]():              true,
		reflect.TypeFor[map[string]int]():    true,
		reflect.TypeFor[onePointer]():        true,
		reflect.TypeFor[[1]onePointer]():     true,
		reflect.TypeFor[pointerAndInt]():     false,
		reflect.TypeFor[TurnStart]():         false,
		reflect.TypeFor[string]():            false,
		reflect.TypeFor[struct{ s []int }](): false,
	} {
		if got := pointerShaped(typ); got != want {
			t.Errorf("pointerShaped(%v) = %v, want %v", typ, got, want)
		}
	}
}

// pointerShaped reports whether Go stores a value of type t in an interface's data word itself,
// the compiler's rule (types.IsDirectIface).
func pointerShaped(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true
	case reflect.Struct:
		return t.NumField() == 1 && pointerShaped(t.Field(0).Type)
	case reflect.Array:
		return t.Len() == 1 && pointerShaped(t.Elem())
	}
	return false
}
