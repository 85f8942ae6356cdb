package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/zoo"
	"github.com/turnsim/turnsim/internal/atomicfile"
	"github.com/turnsim/turnsim/internal/jsonlimit"
	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/sim/herd"
)

// defaultPolicies is what `simrun policy` compares without -policies: the seed's own policy, the
// one Brooker recommends, the SDKs' and gRPC's throttled one.
const defaultPolicies = "seed-default,full-jitter,sdk,grpc-throttle"

// Limits on `simrun policy`, checked before anything runs (README lists them): a herd's memory
// grows with its turns (1,000 agents × 10 followups take about 120 MB), and the seeds are listed.
const (
	policyRequestsMax = 1000   // -requests: followups per agent
	herdTurnsMax      = 10_000 // -agents × -requests: turns in one herd
	policySeedsMax    = 1000   // -seeds: herds per policy
)

// policyFlags are the flags of `simrun policy`, before they are checked.
type policyFlags struct {
	policies, mode, outage, paramsFile, svgFile string
	agents, requests, seeds, concurrency        int
	seed                                        int64
	rps, serviceMs, serverFraction, hopMs       float64
	roundMs, spreadMs, thinkMs                  float64
	asJSON                                      bool
}

// policyPlan is a checked comparison: which strategies, which herd, which seeds.
type policyPlan struct {
	names      []string
	strategies []func() harness.RetryStrategy
	keys       []string
	herd       herd.Options
	seeds      []int64
}

func (c *cli) policy(args []string) int {
	fs := c.flagSet("policy", "policy [-policies a,b,…] [-agents N] [-mode capacity|occ] [-seeds K] [-seed S] [-params FILE] [-svg FILE] [-json] [model flags]")
	var f policyFlags
	fs.StringVar(&f.policies, "policies", defaultPolicies, "the strategies to compare, comma-separated: policy families ("+strings.Join(comparableFamilies(), ", ")+"), and 'agent' for the agent's own strategy")
	fs.IntVar(&f.agents, "agents", 200, "how many agents share the provider (1 to 1000)")
	fs.IntVar(&f.requests, "requests", 0, "followups per agent, one turn at a time (default 3 in capacity mode, 1 in occ mode)")
	fs.IntVar(&f.seeds, "seeds", 3, "how many seeds each policy runs (the results are averaged)")
	fs.Int64Var(&f.seed, "seed", 1, "the first seed")
	fs.StringVar(&f.mode, "mode", string(herd.ProviderCapacity), "the provider's model: capacity (a rate and a concurrency) or occ (Brooker's optimistic-concurrency row)")
	capacity, occ := herd.DefaultCapacityModel(), herd.DefaultOCCModel()
	fs.Float64Var(&f.rps, "rps", capacity.RequestsPerSecond, "capacity mode: requests per second the provider serves (0: no limit)")
	fs.IntVar(&f.concurrency, "concurrency", capacity.Concurrency, "capacity mode: requests it serves at once (0: no limit)")
	fs.Float64Var(&f.serviceMs, "service", capacity.ServiceMs, "capacity mode: mean time to serve a request, in ms")
	fs.Float64Var(&f.serverFraction, "server-fraction", capacity.ServerFraction, "capacity mode: share of over-capacity answers that are SERVER with no Retry-After")
	fs.StringVar(&f.outage, "outage", "", "capacity mode: an outage from,to (ms of virtual time): SERVER to everything, then recovery")
	fs.Float64Var(&f.hopMs, "hop", occ.HopMs, "occ mode: one network hop (mean one-way latency, standard deviation hop/5), in ms")
	fs.Float64Var(&f.roundMs, "round", 0, "occ mode: the conflict round, in ms (default two hops: a read-modify-write's read-to-write window)")
	fs.Float64Var(&f.spreadMs, "spread", 0, "agents send their first followup at offsets drawn in [0, spread) ms (default 1000 in capacity mode, 0 in occ mode)")
	fs.Float64Var(&f.thinkMs, "think", 0, "the longest pause between an agent's turns, in ms (default 500 in capacity mode, 0 in occ mode)")
	fs.StringVar(&f.paramsFile, "params", "", `a JSON file of parameters per strategy family, {"full-jitter": {"baseMs": 5, "capMs": 2000, "always": true}, …}`)
	fs.StringVar(&f.svgFile, "svg", "", "write a chart of load over time per policy (a self-contained SVG) to FILE")
	fs.BoolVar(&f.asJSON, "json", false, "print the comparison as one JSON object on stdout")
	if code, ok := c.parseNoArguments(fs, args); !ok {
		return code
	}
	set := setFlags(fs)
	plan, err := f.plan(set, c.opts.Agent)
	if err != nil {
		return c.usageError("%v", err)
	}
	if err := checkOutputs([]namedPath{{"-params file", f.paramsFile}}, []namedPath{{"-svg", f.svgFile}}); err != nil {
		return c.usageError("%v", err)
	}
	stdout, stderr := c.stdout, c.stderr
	results := plan.run()
	rows := make([]policyRow, len(plan.names))
	for i, name := range plan.names {
		rows[i] = averageRow(name, plan.keys[i], results[i])
		for k, r := range results[i] {
			for _, f := range r.Findings {
				fmt.Fprintf(stderr, "%s: %s, seed %d: the run ended early (%d turns unfinished): %s\n", c.name, name, plan.seeds[k], r.Unfinished, f)
			}
			if r.ViolationCount > 0 {
				fmt.Fprintf(stderr, "%s: %s, seed %d: %d property violation(s): %s\n", c.name, name, plan.seeds[k], r.ViolationCount, strings.Join(r.Violations, "; "))
			}
		}
	}
	if f.svgFile != "" {
		if err := atomicfile.Write(f.svgFile, policyChartSVG(plan, rows)); err != nil {
			return c.usageError("-svg: %v", outputErrorText(err))
		}
	}
	if f.asJSON {
		out, err := json.Marshal(policyReport(plan, rows))
		if err != nil {
			panic(c.name + ": invariant: a policy report always encodes: " + err.Error())
		}
		fmt.Fprintln(stdout, string(out))
		return exitOK
	}
	printPolicyTable(stdout, plan, rows)
	return exitOK
}

// plan checks the flags and turns them into a comparison; the error names the bad flag, policy
// or field.
func (f *policyFlags) plan(set map[string]bool, agent sim.Agent) (policyPlan, error) {
	var p policyPlan
	mode := herd.ProviderMode(f.mode)
	switch mode {
	case herd.ProviderCapacity:
		p.herd.Provider = herd.DefaultCapacityModel()
		for _, name := range []string{"hop", "round"} {
			if set[name] {
				return p, fmt.Errorf("-%s is for -mode occ", name)
			}
		}
		p.herd.Provider.RequestsPerSecond, p.herd.Provider.Concurrency = f.rps, f.concurrency
		p.herd.Provider.BurstRequests = math.Max(1, f.rps/5) // a fifth of a second's worth, as the default
		p.herd.Provider.ServiceMs, p.herd.Provider.ServerFraction = f.serviceMs, f.serverFraction
		if f.outage != "" {
			from, to, ok := strings.Cut(f.outage, ",")
			fromMs, err1 := strconv.ParseFloat(strings.TrimSpace(from), 64)
			toMs, err2 := strconv.ParseFloat(strings.TrimSpace(to), 64)
			if !ok || err1 != nil || err2 != nil {
				return p, fmt.Errorf("-outage %q is not from,to in ms (for example 2000,5000)", f.outage)
			}
			p.herd.Provider.Outage = herd.OutageWindow{FromMs: fromMs, ToMs: toMs}
		}
		p.herd.RequestsPerAgent, p.herd.StartSpreadMs, p.herd.ThinkMs = 3, 1000, 500
	case herd.ProviderOCC:
		p.herd.Provider = herd.DefaultOCCModel()
		for _, name := range []string{"rps", "concurrency", "service", "server-fraction", "outage"} {
			if set[name] {
				return p, fmt.Errorf("-%s is for -mode capacity", name)
			}
		}
		p.herd.Provider.HopMs, p.herd.Provider.HopSdMs, p.herd.Provider.RoundMs = f.hopMs, f.hopMs/5, 2*f.hopMs
		if set["round"] {
			p.herd.Provider.RoundMs = f.roundMs
		}
		p.herd.RequestsPerAgent = 1
	default:
		return p, fmt.Errorf("-mode %q is not capacity or occ", f.mode)
	}
	if set["requests"] {
		if f.requests < 1 {
			return p, fmt.Errorf("-requests %d: need at least 1 followup per agent", f.requests)
		}
		if f.requests > policyRequestsMax {
			return p, fmt.Errorf("-requests %d: at most %d followups per agent", f.requests, policyRequestsMax)
		}
		p.herd.RequestsPerAgent = f.requests
	}
	if set["spread"] {
		p.herd.StartSpreadMs = f.spreadMs
	}
	if set["think"] {
		p.herd.ThinkMs = f.thinkMs
	}
	p.herd.Agents = f.agents
	p.herd.Strategy = zoo.SeedDefault // replaced per policy; here so Validate sees one
	if err := p.herd.Validate(); err != nil {
		return p, err
	}
	if turns := p.herd.Agents * p.herd.RequestsPerAgent; turns > herdTurnsMax {
		return p, fmt.Errorf("-agents %d × -requests %d is %d turns per herd, over the %d a herd may run (memory grows with them): use fewer agents or requests", p.herd.Agents, p.herd.RequestsPerAgent, turns, herdTurnsMax)
	}
	if f.seeds < 1 {
		return p, fmt.Errorf("-seeds %d: need at least 1 seed", f.seeds)
	}
	if f.seeds > policySeedsMax {
		return p, fmt.Errorf("-seeds %d: at most %d seeds per policy", f.seeds, policySeedsMax)
	}
	if f.seed > math.MaxInt64-int64(f.seeds-1) {
		return p, fmt.Errorf("-seed %d with -seeds %d runs past the largest seed %d", f.seed, f.seeds, int64(math.MaxInt64))
	}
	for k := range f.seeds {
		p.seeds = append(p.seeds, f.seed+int64(k))
	}
	params := map[string]json.RawMessage{}
	if f.paramsFile != "" {
		data, err := readCapped(f.paramsFile, paramsFileBytesMax, "-params file")
		if err != nil {
			return p, err
		}
		if params, err = parsePolicyParams(data); err != nil {
			return p, fmt.Errorf("-params %s: %v", f.paramsFile, err)
		}
	}
	for _, name := range strings.Split(f.policies, ",") {
		name = strings.TrimSpace(name)
		switch {
		case name == "":
			return p, fmt.Errorf("-policies %q names an empty policy", f.policies)
		case slices.Contains(p.names, name):
			return p, fmt.Errorf("-policies: policy %q named twice", name)
		}
		newStrategy, key, err := strategyOf(name, params[name], agent.Seeded())
		if err != nil {
			return p, fmt.Errorf("-policies: %v", err)
		}
		p.names = append(p.names, name)
		p.keys = append(p.keys, key)
		p.strategies = append(p.strategies, newStrategy)
	}
	for _, name := range slices.Sorted(maps.Keys(params)) { // parameters for a policy not compared would go unused
		if !slices.Contains(p.names, name) {
			return p, fmt.Errorf("-params %s sets %q, which -policies (%s) does not compare: name it there, or leave it out of the file", f.paramsFile, name, f.policies)
		}
	}
	return p, nil
}

// agentPolicy names, in -policies, the agent's own strategy (Agent.NewStrategy).
const agentPolicy = "agent"

// strategyOf builds the named policy: the agent's own strategy, or a policy family's (the zoo's
// and every one registered with sim.RegisterPolicyFamily that can be built from parameters).
func strategyOf(name string, params json.RawMessage, agent sim.Agent) (func() harness.RetryStrategy, string, error) {
	if name == agentPolicy {
		if agent.NewStrategy == nil {
			return nil, "", errors.New(`"agent" is the agent's own strategy, and this agent has none (sim.Agent.NewStrategy)`)
		}
		if params != nil {
			return nil, "", errors.New(`-params: "agent" takes no parameters: the agent's strategy is what its NewStrategy makes`)
		}
		return agent.NewStrategy, agent.NewStrategy().Key(), nil
	}
	family, err := sim.PolicyFamilyByName(name)
	if err != nil {
		return nil, "", fmt.Errorf("unknown strategy %q (known: %s, %s)", name, strings.Join(comparableFamilies(), ", "), agentPolicy)
	}
	if family.New == nil {
		return nil, "", fmt.Errorf("policy family %q can be fuzzed but not compared: it has no New to build it from parameters", name)
	}
	return family.New(params)
}

// comparableFamilies are the policy families policy can build.
func comparableFamilies() []string {
	var names []string
	for _, f := range sim.PolicyFamilies() {
		if f.New != nil {
			names = append(names, f.Name)
		}
	}
	return names
}

// parsePolicyParams reads -params: one JSON object of parameters per policy family. The zoo's
// families are checked by the zoo (its messages name the field); a registered family's by its New.
func parsePolicyParams(data []byte) (map[string]json.RawMessage, error) {
	var e *jsonlimit.Error
	if err := jsonlimit.CheckBytes(data, jsonlimit.Limits{DuplicateKeys: true}); errors.As(err, &e) && e.Limit {
		return nil, fmt.Errorf("at byte %d: %s", e.Offset, e.Reason) // a key twice would be read as its last value
	}
	var byName map[string]json.RawMessage
	if err := json.Unmarshal(data, &byName); err != nil || byName == nil {
		_, zooErr := zoo.ParseParams(data) // says what is wrong with the JSON, in the zoo's words
		if zooErr != nil {
			return nil, zooErr
		}
		return nil, fmt.Errorf("want one JSON object, {\"family\": {parameters}, ...}")
	}
	zooPart := map[string]json.RawMessage{}
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		raw := byName[name]
		if slices.Contains(zoo.Names(), name) {
			zooPart[name] = raw
			continue
		}
		family, err := sim.PolicyFamilyByName(name)
		if err != nil || family.New == nil {
			return nil, fmt.Errorf("unknown strategy %q (known: %s)", name, strings.Join(comparableFamilies(), ", "))
		}
		if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			return nil, fmt.Errorf("%s: null is not parameters: give a JSON object of fields, or leave the family out for its defaults", name)
		}
		if _, _, err := family.New(raw); err != nil {
			return nil, err
		}
	}
	subset, err := json.Marshal(zooPart)
	if err != nil {
		return nil, err
	}
	if _, err := zoo.ParseParams(subset); err != nil {
		return nil, err
	}
	return byName, nil
}

// run runs every policy on every seed, on a pool of workers; results[policy][seed index].
func (p policyPlan) run() [][]herd.Result {
	type job struct{ policy, seed int }
	jobs := make(chan job)
	results := make([][]herd.Result, len(p.names))
	for i := range results {
		results[i] = make([]herd.Result, len(p.seeds))
	}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(p.names)*len(p.seeds)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				opts := p.herd
				opts.Strategy, opts.Seed = p.strategies[j.policy], p.seeds[j.seed]
				results[j.policy][j.seed] = herd.Run(opts)
			}
		}()
	}
	for i := range p.names {
		for k := range p.seeds {
			jobs <- job{i, k}
		}
	}
	close(jobs)
	wg.Wait()
	return results
}

// policyRow is one policy's results, averaged over the seeds.
type policyRow struct {
	Policy          string    `json:"policy"`
	Key             string    `json:"key"`
	Attempts        float64   `json:"attempts"`
	LogicalRequests float64   `json:"logicalRequests"`
	Amplification   float64   `json:"amplification"`
	CompletionP50Ms float64   `json:"completionP50Ms"`
	CompletionP99Ms float64   `json:"completionP99Ms"`
	PeakPer100Ms    float64   `json:"peakPer100Ms"`
	GaveUp          float64   `json:"gaveUp"`
	GoodputPerSec   float64   `json:"goodputPerSecond"`
	FinishMs        float64   `json:"finishMs"`
	Violations      int       `json:"violations"`
	LoadPer100Ms    []float64 `json:"loadPer100Ms"`
}

// averageRow averages one policy's seeds; the load series is averaged bucket by bucket.
func averageRow(name, key string, results []herd.Result) policyRow {
	row := policyRow{Policy: name, Key: key}
	n := float64(len(results))
	for _, r := range results {
		row.Attempts += float64(r.Attempts) / n
		row.LogicalRequests += float64(r.LogicalRequests) / n
		row.Amplification += r.Amplification / n
		row.CompletionP50Ms += r.CompletionP50Ms / n
		row.CompletionP99Ms += r.CompletionP99Ms / n
		row.PeakPer100Ms += float64(r.PeakPer100Ms) / n
		row.GaveUp += float64(r.GaveUp) / n
		row.GoodputPerSec += r.GoodputMean() / n
		row.FinishMs += r.FinishMs / n
		row.Violations += r.ViolationCount + len(r.Findings)
		for len(row.LoadPer100Ms) < len(r.LoadPer100Ms) {
			row.LoadPer100Ms = append(row.LoadPer100Ms, 0)
		}
		for b, count := range r.LoadPer100Ms {
			row.LoadPer100Ms[b] += float64(count) / n
		}
	}
	return row
}

// describeHerd says in a line what was compared.
func describeHerd(p policyPlan) string {
	m := p.herd.Provider
	var model string
	if m.Mode == herd.ProviderOCC {
		model = fmt.Sprintf("occ mode (hops of %g ± %g ms, rounds of %g ms)", m.HopMs, m.HopSdMs, m.RoundMs)
	} else {
		model = fmt.Sprintf("capacity mode (%g requests/s, %d at once, service %g ms", m.RequestsPerSecond, m.Concurrency, m.ServiceMs)
		if m.Outage != (herd.OutageWindow{}) {
			model += fmt.Sprintf(", outage %g–%g ms", m.Outage.FromMs, m.Outage.ToMs)
		}
		model += ")"
	}
	seeds := fmt.Sprintf("seed %d", p.seeds[0])
	if len(p.seeds) > 1 {
		seeds = fmt.Sprintf("seeds %d–%d, averaged", p.seeds[0], p.seeds[len(p.seeds)-1])
	}
	requests := "requests"
	if p.herd.RequestsPerAgent == 1 {
		requests = "request"
	}
	return fmt.Sprintf("%d agents × %d %s, %s, %s", p.herd.Agents, p.herd.RequestsPerAgent, requests, model, seeds)
}

// printPolicyTable writes the comparison for people.
func printPolicyTable(w io.Writer, p policyPlan, rows []policyRow) {
	fmt.Fprintln(w, describeHerd(p))
	width := len("policy")
	for _, r := range rows {
		width = max(width, len(r.Policy))
	}
	fmt.Fprintf(w, "%-*s %9s %6s %9s %9s %10s %8s %9s %9s\n", width, "policy", "attempts", "ampl.", "p50 ms", "p99 ms", "peak/100ms", "gave up", "goodput/s", "finish s")
	for _, r := range rows {
		fmt.Fprintf(w, "%-*s %9.1f %6.2f %9.0f %9.0f %10.1f %8.1f %9.1f %9.2f\n", width, r.Policy, r.Attempts, r.Amplification,
			r.CompletionP50Ms, r.CompletionP99Ms, r.PeakPer100Ms, r.GaveUp, r.GoodputPerSec, r.FinishMs/1000)
	}
	fmt.Fprintln(w, "\nattempts: requests the provider received; ampl.: attempts per turn; p50/p99: completed turns, turn/start to turn/end;")
	fmt.Fprintln(w, "peak/100ms: most requests in any 100 ms; gave up: turns ended in error; goodput/s: successes per second; finish: last turn/end.")
	fmt.Fprintln(w, "\nkeys:")
	for _, r := range rows {
		fmt.Fprintf(w, "  %-*s %s\n", width, r.Policy, r.Key)
	}
}

// policyReport is the -json output.
func policyReport(p policyPlan, rows []policyRow) map[string]any {
	return map[string]any{
		"agents":           p.herd.Agents,
		"requestsPerAgent": p.herd.RequestsPerAgent,
		"startSpreadMs":    p.herd.StartSpreadMs,
		"thinkMs":          p.herd.ThinkMs,
		"provider":         p.herd.Provider,
		"seeds":            p.seeds,
		"policies":         rows,
	}
}
