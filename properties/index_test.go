package properties

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/turnsim/turnsim/harness"
)

// The index finds turns by number and steps by (turn, number) in slices, not maps; on any log,
// broken ones too (a number started twice, numbers out of order, negative or far apart, events
// of turns and steps never started), it answers what the maps it replaced did: the last start of
// a number wins, and a step's calls go to the step its (turn, number) names at that point.
func TestIndexLookupsAreTheMaps(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		turnNumbers := rapid.SampledFrom([]int{1, 2, 3, 0, -1, 40})
		stepNumbers := rapid.IntRange(0, 3)
		var log []harness.Event
		for i := range rapid.IntRange(0, 40).Draw(t, "events") {
			var d harness.EventData
			turn := turnNumbers.Draw(t, "turn")
			switch rapid.IntRange(0, 3).Draw(t, "kind") {
			case 0:
				d = harness.TurnStart{Turn: turn}
			case 1:
				d = harness.StepStart{Turn: turn, Step: stepNumbers.Draw(t, "step")}
			case 2:
				d = harness.ToolCall{Turn: turn, Step: stepNumbers.Draw(t, "step"), CallID: "c"}
			default:
				d = harness.TurnEnd{Turn: turn}
			}
			log = append(log, harness.Event{Seq: int64(i + 1), Data: d})
		}
		// The reference: maps from numbers to the seq of the turn/start or step/start that made
		// what they name, and each step's calls by that seq.
		type stepKey struct {
			turnSeq int64
			number  int
		}
		turnStarts, stepStarts := map[int]int64{}, map[stepKey]int64{}
		var order []int
		callsOf, endOf := map[int64][]int64{}, map[int64]int64{}
		for _, e := range log {
			switch d := e.Data.(type) {
			case harness.TurnStart:
				turnStarts[d.Turn] = e.Seq
				order = append(order, d.Turn)
			case harness.TurnEnd:
				if ts, ok := turnStarts[d.Turn]; ok {
					endOf[ts] = e.Seq
				}
			case harness.StepStart:
				if ts, ok := turnStarts[d.Turn]; ok {
					stepStarts[stepKey{ts, d.Step}] = e.Seq
				}
			case harness.ToolCall:
				if ss, ok := stepStarts[stepKey{turnStarts[d.Turn], d.Step}]; ok {
					callsOf[ss] = append(callsOf[ss], e.Seq)
				}
			}
		}
		x := newIndex(&Run{Log: log})
		callSeqs := func(s *stepIndex) []int64 {
			var seqs []int64
			for _, c := range s.calls {
				seqs = append(seqs, c.seq)
			}
			return seqs
		}
		for _, n := range []int{1, 2, 3, 0, -1, 40, 4, -2} {
			ts, ok := turnStarts[n]
			got := x.turn(n)
			require.Equal(t, ok, got != nil, "turn %d", n)
			if !ok {
				continue
			}
			require.Equal(t, ts, got.startSeq, "turn %d", n)
			require.Equal(t, endOf[ts], got.endSeq, "turn %d's end", n)
			for sn := range 4 {
				ss, ok := stepStarts[stepKey{ts, sn}]
				s := x.stepOf(got, sn)
				require.Equal(t, ok, s != nil, "turn %d step %d", n, sn)
				if ok {
					require.Equal(t, callsOf[ss], callSeqs(s), "turn %d step %d's calls", n, sn)
				}
			}
			for _, ref := range got.steps {
				require.Same(t, x.stepOf(got, ref.number), ref.step, "turn %d's list, step %d", n, ref.number)
			}
		}
		require.Len(t, x.turnList, len(order))
		for i, n := range order {
			require.Same(t, x.turn(n), x.turnList[i], "turn list entry %d", i)
		}
	})
}

// refusedIn searches the refusals; it answers what the map of (turn, step) to refused types that
// it replaced did, where a refusal counted for its turn (step 0) and for its own step.
func TestRefusedInIsTheMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		types := []string{harness.TypeToolCall, harness.TypeToolResult, harness.TypeStepEnd}
		var refusals []Refusal
		refused := map[[2]int]map[string]bool{}
		for range rapid.IntRange(0, 5).Draw(t, "refusals") {
			f := Refusal{Turn: rapid.IntRange(0, 2).Draw(t, "turn"), Step: rapid.IntRange(0, 2).Draw(t, "step"), Type: rapid.SampledFrom(types).Draw(t, "type")}
			refusals = append(refusals, f)
			for _, key := range [][2]int{{f.Turn, 0}, {f.Turn, f.Step}} {
				if refused[key] == nil {
					refused[key] = map[string]bool{}
				}
				refused[key][f.Type] = true
			}
		}
		x := newIndex(&Run{Trace: Trace{Refusals: refusals}})
		for turn := range 3 {
			for step := range 3 {
				key := [2]int{turn, step}
				require.Equal(t, len(refused[key]) > 0, x.refusedIn(turn, step), "%v, any type", key)
				for _, a := range types {
					require.Equal(t, refused[key][a], x.refusedIn(turn, step, a), "%v, %s", key, a)
					for _, b := range types {
						require.Equal(t, refused[key][a] || refused[key][b], x.refusedIn(turn, step, a, b), "%v, %s or %s", key, a, b)
					}
				}
			}
		}
	})
}

// release leaves nothing of the run in a pooled index but its buffers: every other field is
// zero, whatever a check set, so the next newIndex starts from a zero index.
func TestReleaseZeroesAllButTheBuffers(t *testing.T) {
	x := &index{}
	value := reflect.ValueOf(x).Elem()
	for i := range value.NumField() {
		if value.Type().Field(i).Name == "bufs" {
			continue
		}
		// Set every field to a non-zero value of its type, through its address (unexported).
		field := reflect.NewAt(value.Field(i).Type(), unsafe.Pointer(value.Field(i).UnsafeAddr())).Elem()
		field.Set(nonZero(t, field.Type()))
	}
	x.bufs.stepRefs = make([]stepRef, 0, 3)
	x.release()
	value = reflect.ValueOf(x).Elem()
	for i := range value.NumField() {
		name := value.Type().Field(i).Name
		if name != "bufs" && !value.Field(i).IsZero() {
			t.Errorf("release leaves the index's %s set", name)
		}
	}
	if cap(x.bufs.stepRefs) != 3 {
		t.Errorf("release dropped the buffers")
	}
}

// nonZero is a value of type typ that is not its zero value.
func nonZero(t *testing.T, typ reflect.Type) reflect.Value {
	v := reflect.New(typ).Elem()
	switch typ.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(7)
	case reflect.String:
		v.SetString("x")
	case reflect.Slice:
		v.Set(reflect.MakeSlice(typ, 1, 1))
	case reflect.Map:
		v.Set(reflect.MakeMap(typ))
	case reflect.Pointer:
		v.Set(reflect.New(typ.Elem()))
	case reflect.Struct:
		if typ.NumField() == 0 {
			t.Fatalf("no non-zero value of %v", typ)
		}
		f := reflect.NewAt(typ.Field(0).Type, unsafe.Pointer(v.Field(0).UnsafeAddr())).Elem()
		f.Set(nonZero(t, f.Type()))
	default:
		t.Fatalf("no non-zero value of kind %v", typ.Kind())
	}
	return v
}
