package sim_test

import (
	"fmt"

	"github.com/turnsim/turnsim/sim"
)

// printingT stands in for *testing.T, so the example can show what Check reports.
type printingT struct{ failed bool }

func (*printingT) Helper() {}
func (p *printingT) Errorf(format string, args ...any) {
	p.failed = true
	fmt.Printf(format+"\n", args...)
}

// In a test, pass the *testing.T: sim.Check(t, sim.CheckOptions{Seeds: 2000}).
func ExampleCheck() {
	t := &printingT{}
	sim.Check(t, sim.CheckOptions{Seeds: 200})
	fmt.Println("failed:", t.failed)
	// Output: failed: false
}
