package sim

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/turnsim/turnsim/faults"
)

// rapidSchedules draws schedules over the whole catalogue; built once, since a generator is
// immutable and may be shared.
var rapidSchedules = ScheduleGen(nil)

// checkSchedule is the property TestPropertiesHoldForRapidSchedules and FuzzSchedules share:
// every property holds for any schedule rapid draws. On failure it prints the schedule as a file
// `simrun repro FILE` replays.
func checkSchedule(t *rapid.T) {
	s := rapidSchedules.Draw(t, "schedule")
	o := RunSchedule(s)
	if len(o.Violations) == 0 {
		return
	}
	lines := make([]string, len(o.Violations))
	for i, v := range o.Violations {
		lines[i] = "  " + v.String()
	}
	file, err := s.MarshalIndent()
	if err != nil {
		t.Fatalf("%d violation(s), and the schedule does not encode: %v\n%s", len(lines), err, strings.Join(lines, "\n"))
	}
	t.Fatalf("%d violation(s):\n%s\nschedule (save it and run `go run ./cmd/simrun repro FILE`):\n%s\ntimeline:\n%s",
		len(lines), strings.Join(lines, "\n"), file, Timeline(o.Log, 0))
}

func TestPropertiesHoldForRapidSchedules(t *testing.T) {
	rapid.Check(t, checkSchedule)
}

// allowedGen draws a restriction of the catalogue, nil (everything) as the simplest.
var allowedGen = rapid.Custom(func(t *rapid.T) []string {
	if !rapid.Bool().Draw(t, "restricted") {
		return nil
	}
	return rapid.SliceOfDistinct(rapid.SampledFrom(faults.Names()), rapid.ID[string]).Draw(t, "allowed")
})

func TestRapidPlansAlwaysValidate(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		allowed := allowedGen.Draw(t, "allowed")
		plans := PlanGen(allowed)
		for i := range 20 { // 20 plans a check: 2,000 plans at rapid's default 100 checks
			plan := plans.Draw(t, "plan")
			if err := plan.Validate(); err != nil {
				t.Fatalf("plan %d does not validate: %v", i, err)
			}
			for name := range swarmOf(plan) {
				if allowed != nil && !slices.Contains(allowed, name) {
					t.Fatalf("plan %d uses fault %s, but only %v are allowed", i, name, allowed)
				}
			}
			if first := plan.Actions[0]; first.Kind != faults.ActFollowup || first.AtMs != 0 {
				t.Fatalf("plan %d does not open with the first followup at 0: %+v", i, first)
			}
			if !slices.IsSortedFunc(plan.Actions, func(a, b faults.Action) int { return int(a.AtMs - b.AtMs) }) {
				t.Fatalf("plan %d: actions are not in time order", i)
			}
		}
	})
}

func TestRapidSchedulesRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := ScheduleGen(allowedGen.Draw(t, "allowed")).Draw(t, "schedule")
		if err := s.Validate(); err != nil {
			t.Fatalf("drawn schedule does not validate: %v", err)
		}
		file, err := s.MarshalIndent()
		if err != nil {
			t.Fatalf("MarshalIndent: %v", err)
		}
		back, err := ParseSchedule(file)
		if err != nil {
			t.Fatalf("ParseSchedule refuses what MarshalIndent wrote: %v\n%s", err, file)
		}
		if !reflect.DeepEqual(back, s) {
			t.Fatalf("the schedule changed in a round trip through its file:\nbefore %#v\nafter  %#v", s, back)
		}
	})
}

// TestPlanGenReachesEveryFault: for each fault of the catalogue, a generator allowed only that
// fault draws a plan that uses it. A fault added to the catalogue without a way for PlanGen to
// draw it fails here (a provider fault without a shape panics first).
func TestPlanGenReachesEveryFault(t *testing.T) {
	for _, f := range faults.Catalogue() {
		name := f.Name
		if f.Group == faults.GroupWire {
			continue // the wire's, drawn apart by faults.DrawWire for a registered wire (sim/wire's tests)
		}
		plans := PlanGen([]string{name})
		reached := false
		for seed := 0; seed < 200 && !reached; seed++ {
			_, reached = swarmOf(plans.Example(seed))[name]
		}
		if !reached {
			t.Errorf("200 plans drawn with only %s allowed never use it", name)
		}
	}
}

func TestPlanGenRefusesUnknownFaults(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), `unknown fault "gremlins"`) {
			t.Fatalf("PlanGen with an unknown fault: recovered %v, want a panic naming it", r)
		}
	}()
	PlanGen([]string{faults.RateLimit, "gremlins"})
}
