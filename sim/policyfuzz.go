package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"pgregory.net/rapid"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/zoo"
)

// Policy fuzzing: a new retry strategy is tried before it ships by drawing its parameters and
// the schedules it runs under, and checking what every strategy must keep whatever it decides:
// delays finite, ≥ 0 and within its cap; no more retries than its budget; a cancellation ends
// the wait at once; llm/retry durable before the wait; a log that passes the invariant layer.
// The parameters are drawn through rapid, so a failure shrinks to a minimal parameter set.

// PolicyFamily is a family of retry strategies fuzzing can draw from: Draw draws its parameters
// and returns a constructor (called once per agent incarnation, so state such as a token bucket
// starts fresh) and the parameters, for the report.
type PolicyFamily struct {
	Name string
	Draw func(t *rapid.T) (newStrategy func() harness.RetryStrategy, params string)
	// New, if set, builds the family's strategy from parameters given as JSON (nil: its
	// defaults), refusing bad ones with an error naming the field: what `policy -policies NAME
	// -params FILE` compares. It returns a constructor, as Draw does, and the strategy's key. A
	// family without New can be fuzzed but not compared.
	New func(params json.RawMessage) (newStrategy func() harness.RetryStrategy, key string, err error)
}

// CheckPolicy draws a schedule and a strategy of family, runs the schedule with it in turnsim's
// own agent, and fails t with every violation: use it inside rapid.Check.
//
//	rapid.Check(t, func(t *rapid.T) { sim.CheckPolicy(t, myFamily, nil) })
func CheckPolicy(t *rapid.T, family PolicyFamily, allowed []string) {
	CheckPolicyAgent(t, family, allowed, Agent{})
}

// CheckPolicyAgent is CheckPolicy in a user's agent: the drawn strategy replaces the agent's
// NewStrategy, and everything else of the agent (its tools, handlers, middleware and own
// properties) runs as it is, so that a family is fuzzed where it will ship.
func CheckPolicyAgent(t *rapid.T, family PolicyFamily, allowed []string, agent Agent) {
	newStrategy, params := family.Draw(t)
	seed := rapid.Int64Range(1, 1<<40).Draw(t, "seed")
	agent = agent.withEachSeed(func(a Agent) Agent {
		a.NewStrategy = newStrategy // a PerSeed agent's too
		return a
	})
	o := RunScheduleAgent(agent.Schedule(seed, allowed), agent)
	if len(o.Violations) > 0 {
		var lines []string
		for _, v := range o.Violations {
			lines = append(lines, v.String())
		}
		t.Fatalf("%s %s breaks %d propert(ies) on seed %d:\n  %s", family.Name, params, len(o.Violations), seed, strings.Join(lines, "\n  "))
	}
}

// PolicyFamilies returns the families fuzzing knows, by name, in a stable order.
func PolicyFamilies() []PolicyFamily {
	families := zooFamilies()
	for _, register := range extraPolicyFamilies {
		families = append(families, register()...)
	}
	slices.SortStableFunc(families, func(a, b PolicyFamily) int { return strings.Compare(a.Name, b.Name) })
	return families
}

// PolicyFamilyByName finds a family.
func PolicyFamilyByName(name string) (PolicyFamily, error) {
	var names []string
	for _, f := range PolicyFamilies() {
		if f.Name == name {
			return f, nil
		}
		names = append(names, f.Name)
	}
	return PolicyFamily{}, fmt.Errorf("sim: unknown policy family %q (known: %s)", name, strings.Join(names, ", "))
}

// extraPolicyFamilies are families registered by other files (RegisterPolicyFamily).
var extraPolicyFamilies []func() []PolicyFamily

// zooFamilies are the zoo's strategies, each drawn around its published defaults: every numeric
// parameter scaled by a drawn factor (¼ to 4; at most 1 for one at or below 1, such as a ratio),
// every flag drawn. A combination the family's Validate refuses falls back to the defaults, so
// each draw is a valid strategy. The seed's own families draw their whole valid range instead.
func zooFamilies() []PolicyFamily {
	var families []PolicyFamily
	for _, name := range zoo.Names() {
		switch name {
		case "seed-default":
			families = append(families, seedFamily(harness.ModeNormal))
		case "seed-always":
			families = append(families, seedFamily(harness.ModeAlways))
		default:
			families = append(families, zooFamily(name))
		}
	}
	return families
}

// zooNew is a zoo family's New: zoo.New on the parameters.
func zooNew(name string) func(json.RawMessage) (func() harness.RetryStrategy, string, error) {
	return func(params json.RawMessage) (func() harness.RetryStrategy, string, error) {
		s, err := zoo.New(name, params)
		if err != nil {
			return nil, "", err
		}
		build := func() harness.RetryStrategy {
			fresh, err := zoo.New(name, params)
			if err != nil {
				panic(fmt.Sprintf("sim: invariant: zoo %s refused parameters it accepted: %v", name, err))
			}
			return fresh
		}
		return build, s.Key(), nil
	}
}

func zooFamily(name string) PolicyFamily {
	return PolicyFamily{Name: name, New: zooNew(name), Draw: func(t *rapid.T) (func() harness.RetryStrategy, string) {
		defaults, err := zoo.DefaultParams(name)
		if err != nil {
			t.Fatalf("%v", err)
		}
		var fields map[string]any
		if err := json.Unmarshal(defaults, &fields); err != nil {
			t.Fatalf("zoo %s: defaults: %v", name, err)
		}
		keys := make([]string, 0, len(fields))
		for k := range fields {
			keys = append(keys, k)
		}
		slices.Sort(keys) // draw in a fixed order, so the same draws give the same parameters
		for _, k := range keys {
			switch v := fields[k].(type) {
			case float64:
				factors := []float64{1, 0.5, 2, 0.25, 4}
				if v <= 1 {
					factors = []float64{1, 0.5, 0.25}
				}
				scaled := v * rapid.SampledFrom(factors).Draw(t, k)
				if v == math.Trunc(v) {
					scaled = math.Max(math.Round(scaled), math.Min(v, 1))
				}
				fields[k] = scaled
			case bool:
				fields[k] = rapid.Bool().Draw(t, k)
			}
		}
		params, _ := json.Marshal(fields)
		if _, err := zoo.New(name, params); err != nil {
			params = defaults
		}
		build := func() harness.RetryStrategy {
			s, err := zoo.New(name, params)
			if err != nil {
				panic(fmt.Sprintf("sim: invariant: zoo %s refused parameters it accepted: %v", name, err))
			}
			return s
		}
		return build, string(params)
	}}
}

// seedFamily draws the seed's RetryPolicy in one mode, over the whole range Validate accepts
// (bounded so a run stays short).
func seedFamily(mode harness.Mode) PolicyFamily {
	name := "seed-default"
	if mode == harness.ModeAlways {
		name = "seed-always"
	}
	return PolicyFamily{Name: name, New: zooNew(name), Draw: func(t *rapid.T) (func() harness.RetryStrategy, string) {
		p := harness.DefaultRetryPolicy()
		p.Mode = mode
		p.InitialDelayMs = float64(rapid.IntRange(0, 5000).Draw(t, "initialDelayMs"))
		p.MaxDelayMs = p.InitialDelayMs + float64(rapid.IntRange(0, 60000).Draw(t, "extraMaxDelayMs"))
		p.JitterRatio = float64(rapid.IntRange(0, 100).Draw(t, "jitterPercent")) / 100
		p.MaxRetries = 0
		if mode == harness.ModeNormal {
			p.MaxRetries = rapid.IntRange(1, 10).Draw(t, "maxRetries")
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("drew an invalid policy: %v", err)
		}
		return func() harness.RetryStrategy { return p.Strategy() }, p.PolicyKey()
	}}
}
