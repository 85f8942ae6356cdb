package harness

import "testing"

// TestMaxRetriesOfSharesAnUnchangedBudget checks that records share the pointer while the budget
// stays the same, get a new one (the old one unchanged) when it changes, and that asking again
// for an unchanged budget allocates nothing.
func TestMaxRetriesOfSharesAnUnchangedBudget(t *testing.T) {
	var p llmRetry
	first := p.maxRetriesOf(2)
	if *first != 2 || p.maxRetriesOf(2) != first {
		t.Fatalf("budget 2: got %d, then a different pointer", *first)
	}
	changed := p.maxRetriesOf(3)
	if changed == first || *changed != 3 || *first != 2 {
		t.Fatalf("budget 3: got %d (shared %v); the earlier record's now says %d", *changed, changed == first, *first)
	}
	if allocs := testing.AllocsPerRun(100, func() { p.maxRetriesOf(3) }); allocs != 0 {
		t.Fatalf("an unchanged budget allocated %.0f times a call", allocs)
	}
}
