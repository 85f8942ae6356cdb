package sim

import (
	"fmt"
	"strings"
)

// TestingT is what Check needs of a *testing.T: a test helper that can report errors.
type TestingT interface {
	Helper()
	Errorf(format string, args ...any)
}

// CheckOptions say which seeds Check runs.
type CheckOptions struct {
	// Seeds is how many seeds to run (default 1000), from Start (default 1).
	Seeds int
	Start int64
	// Faults restricts the swarm to these faults; nil means the whole catalogue.
	Faults []string
	// Workers run seeds in parallel; 0 means GOMAXPROCS.
	Workers int
}

// Check runs seeded schedules inside a user's own `go test` and reports every failing seed
// through t.Errorf, with its violations and one command that reproduces it:
//
//	func TestHarness(t *testing.T) { sim.Check(t, sim.CheckOptions{Seeds: 2000}) }
func Check(t TestingT, opts CheckOptions) {
	t.Helper()
	if opts.Seeds <= 0 {
		opts.Seeds = 1000
	}
	if opts.Start == 0 {
		opts.Start = 1
	}
	summary := RunSeeds(RunOptions{Start: opts.Start, Count: opts.Seeds, Workers: opts.Workers, Faults: opts.Faults})
	for _, f := range summary.Failures {
		message := fmt.Sprintf("seed %d broke %d propert", f.Seed, len(f.Violations))
		if len(f.Violations) == 1 {
			message += "y:"
		} else {
			message += "ies:"
		}
		for _, v := range f.Violations {
			message += "\n  " + v.String()
		}
		message += "\n  reproduce: go run github.com/turnsim/turnsim/cmd/simrun repro -seed " + fmt.Sprint(f.Seed)
		if len(opts.Faults) > 0 {
			message += " -faults " + strings.Join(opts.Faults, ",")
		}
		t.Errorf("%s", message)
	}
}
