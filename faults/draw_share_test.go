package faults

import (
	"encoding/json"
	"testing"
)

// A plan shares no memory with another plan, nor one answer with another: an append to one
// answer's calls, a call's faults or a failure's layers never writes into its neighbour's, and
// changing every value of one plan leaves a plan drawn before it as it was.
func TestPlansShareNoMemory(t *testing.T) {
	for seed := range int64(500) {
		_, kept := DrawSchedule(seed, nil)
		before := planJSON(t, kept)
		_, plan := DrawSchedule(seed+1_000_000, nil)
		drawn := planJSON(t, plan)
		for i := range plan.Answers {
			a := &plan.Answers[i]
			_ = append(a.Calls, Call{Name: "appended"})
			for j := range a.Calls {
				_ = append(a.Calls[j].Faults, "appended")
			}
			if a.Fail != nil {
				_ = append(a.Fail.Wrap, "appended")
			}
		}
		if got := planJSON(t, plan); got != drawn {
			t.Fatalf("seed %d: an append to one answer's slices changed another answer", seed+1_000_000)
		}
		for i := range plan.Answers {
			a := &plan.Answers[i]
			for j := range a.Calls {
				a.Calls[j].Name = "changed"
				for k := range a.Calls[j].Faults {
					a.Calls[j].Faults[k] = "changed"
				}
			}
			if a.Fail != nil {
				a.Fail.Message = "changed"
				for k := range a.Fail.Wrap {
					a.Fail.Wrap[k] = "changed"
				}
			}
		}
		for i := range plan.Actions {
			plan.Actions[i].Text = "changed"
		}
		if got := planJSON(t, kept); got != before {
			t.Fatalf("seed %d: changing a plan drawn after it changed the plan", seed)
		}
	}
}

func planJSON(t *testing.T, plan Plan) string {
	t.Helper()
	b, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
