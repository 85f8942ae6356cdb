package sim

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// TestingT is what Check needs of a *testing.T: a test helper that can report errors.
type TestingT interface {
	Helper()
	Errorf(format string, args ...any)
}

// CheckOptions say which seeds Check runs, and with which agent.
type CheckOptions struct {
	// Seeds is how many seeds to run (default 1000), from Start (default 1).
	Seeds int
	Start int64
	// Faults restricts the swarm to these faults; nil means the whole catalogue.
	Faults []string
	// Workers run seeds in parallel; 0 means GOMAXPROCS.
	Workers int
	// Agent is the user's agent (the zero Agent: turnsim's own): its strategy, handlers, tools,
	// provider middleware, pool limit and properties.
	Agent Agent
	// ShrinkBudget is the wall time spent minimising the lowest failing seed of a user's agent
	// (default 10s; negative: no shrinking). turnsim's own agent is shrunk by simrun instead.
	ShrinkBudget time.Duration
}

// SeedEnv names the environment variable that makes Check run one seed: the repro line of a
// user's agent (`TURNSIM_SEED=42 go test -run TestAgent`), since simrun cannot build their agent.
const SeedEnv = "TURNSIM_SEED"

// Check runs seeded schedules inside a user's own `go test` and reports every failing seed
// through t.Errorf, with its violations and one command that reproduces it:
//
//	func TestHarness(t *testing.T) { sim.Check(t, sim.CheckOptions{Seeds: 2000}) }
//
// With a user's Agent, an agent the harness refuses is reported once, as the configuration
// error it is, and no seed runs; the lowest failing seed is shrunk and its minimal schedule and
// timeline printed.
func Check(t TestingT, opts CheckOptions) {
	t.Helper()
	if opts.Seeds <= 0 {
		opts.Seeds = 1000
	}
	if opts.Start == 0 {
		opts.Start = 1
	}
	if env := os.Getenv(SeedEnv); env != "" {
		seed, err := strconv.ParseInt(env, 10, 64)
		if err != nil {
			t.Errorf("sim: %s=%q is not a seed (an integer)", SeedEnv, env)
			return
		}
		opts.Start, opts.Seeds = seed, 1
	}
	summary := RunSeeds(RunOptions{Start: opts.Start, Count: opts.Seeds, Workers: opts.Workers, Faults: opts.Faults, Agent: opts.Agent})
	if summary.ConfigError != "" {
		t.Errorf("%s", summary.ConfigError)
		return
	}
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
		message += "\n  reproduce: " + reproCommand(t, f.Seed, opts)
		t.Errorf("%s", message)
	}
	if len(summary.Failures) > 0 && opts.Agent.userDefined() && opts.ShrinkBudget >= 0 {
		t.Errorf("%s", shrunkReport(summary.Failures[0], opts))
	}
}

// userDefined reports whether simrun could not run the agent: it is the user's, in its
// configuration or its properties.
func (a Agent) userDefined() bool { return a.custom() || len(a.Properties) > 0 }

// reproCommand is the one line that runs a failing seed again: simrun for turnsim's own agent,
// the user's own test (through SeedEnv) for theirs.
func reproCommand(t TestingT, seed int64, opts CheckOptions) string {
	if !opts.Agent.userDefined() {
		command := "go run github.com/turnsim/turnsim/cmd/simrun repro -seed " + fmt.Sprint(seed)
		if len(opts.Faults) > 0 {
			command += " -faults " + strings.Join(opts.Faults, ",")
		}
		return command
	}
	command := fmt.Sprintf("%s=%d go test", SeedEnv, seed)
	if named, ok := t.(interface{ Name() string }); ok {
		command += " -run '^" + strings.ReplaceAll(named.Name(), "/", "$/^") + "$'"
	}
	return command + " ."
}

// shrunkReport minimises a failing seed for its first property and shows the smallest schedule
// that still breaks it, with the timeline of its run.
func shrunkReport(f SeedViolations, opts CheckOptions) string {
	budget := opts.ShrinkBudget
	if budget == 0 {
		budget = 10 * time.Second
	}
	property := f.Violations[0].Property
	r := ShrinkAgent(opts.Agent.Schedule(f.Seed, opts.Faults), property, budget, opts.Agent)
	plan, err := json.Marshal(r.Schedule.Plan)
	if err != nil {
		return fmt.Sprintf("sim: the shrunk schedule of seed %d does not encode: %v", f.Seed, err)
	}
	out := RunScheduleAgent(r.Schedule, opts.Agent)
	var start int64
	if len(out.Log) > 0 {
		start = out.Log[0].Time
	}
	complete := "complete"
	if !r.Complete {
		complete = "stopped at its time budget"
	}
	return fmt.Sprintf("seed %d shrunk for %s: size %d → %d in %d runs (%s)\n  shrunk plan (calls by the plan's tool names; the run shows yours): %s\n  its run:\n%s",
		f.Seed, property, r.SizeBefore, r.SizeAfter, r.Runs, complete, plan, Timeline(out.Log, start))
}
