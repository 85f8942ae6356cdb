package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/turnsim/turnsim/sim"
)

// fuzzPolicyReport is what `simrun fuzz-policy -json` prints; its keys are stable (README).
type fuzzPolicyReport struct {
	Seed     uint64             `json:"seed"`
	Checks   int                `json:"checks"`
	Repeat   string             `json:"repeat"`
	Families []fuzzFamilyResult `json:"families"`
	Failed   int                `json:"failed"`
}

// fuzzFamilyResult is one family's verdict; Report is rapid's account of the minimal failing
// draw ("" when the family passed).
type fuzzFamilyResult struct {
	Family string `json:"family"`
	OK     bool   `json:"ok"`
	Report string `json:"report,omitempty"`
}

// fuzzChecksMax bounds -checks: rapid counts its checks in an int it adds to, and a count near
// the int's end ran no test at all and reported every family broken.
const fuzzChecksMax = 1_000_000

func (c *cli) fuzzPolicy(args []string) int {
	fs := c.flagSet("fuzz-policy", "fuzz-policy [-policies a,b] [-checks N] [-faults a,b] [-seed S] [-json] [-plant NAME]")
	policies := fs.String("policies", "", "the policy families to fuzz (comma-separated; default: all, those registered with sim.RegisterPolicyFamily included)")
	checks := fs.Int("checks", 100, fmt.Sprintf("how many parameter sets and schedules to try per family (1 to %d)", fuzzChecksMax))
	seed := fs.Uint64("seed", 0, "rapid's seed, 1 or more, to repeat an earlier run (default: a fresh one, printed)")
	asJSON := fs.Bool("json", false, "print the results as one JSON object on stdout")
	var sel selection
	sel.register(fs, c.name)
	if code, ok := c.parseNoArguments(fs, args); !ok {
		return code
	}
	if *checks < 1 || *checks > fuzzChecksMax {
		return c.usageError("-checks %d: need 1 to %d", *checks, fuzzChecksMax)
	}
	if setFlags(fs)["seed"] && *seed == 0 {
		return c.usageError("-seed 0: rapid reads 0 as \"draw a random seed\"; give 1 or more")
	}
	allowed, err := sel.apply()
	if err != nil {
		return c.usageError("%v", err)
	}
	families, err := fuzzFamilies(*policies)
	if err != nil {
		return c.usageError("-policies: %v", err)
	}
	for *seed == 0 {
		*seed = rand.Uint64() // a fresh seed, printed with the command that repeats it
	}
	if err := prepareRapid(*checks, *seed); err != nil {
		return c.usageError("%v", err)
	}
	report := fuzzPolicyReport{Seed: *seed, Checks: *checks, Repeat: c.fuzzRepeatCommand(*seed, *checks, *policies, &sel), Families: []fuzzFamilyResult{}}
	if !*asJSON {
		fmt.Fprintf(c.stdout, "seed %d; repeat: %s\n", report.Seed, report.Repeat)
	}
	agent := c.opts.Agent
	for _, family := range families {
		rapidOut := &rapidReport{name: family.Name}
		rapid.Check(rapidOut, func(t *rapid.T) { sim.CheckPolicyAgent(t, family, allowed, agent) })
		result := fuzzFamilyResult{Family: family.Name, OK: !rapidOut.Failed()}
		if !result.OK {
			report.Failed++
			result.Report = rapidOut.text()
		}
		report.Families = append(report.Families, result)
		switch {
		case *asJSON:
		case result.OK:
			fmt.Fprintf(c.stdout, "ok   %s (%d checks)\n", family.Name, *checks)
		default:
			fmt.Fprintf(c.stdout, "FAIL %s\n%s", family.Name, indent(result.Report))
		}
	}
	if *asJSON {
		out, err := json.Marshal(report)
		if err != nil {
			panic(c.name + ": invariant: a fuzzing report always encodes: " + err.Error())
		}
		fmt.Fprintln(c.stdout, string(out))
	}
	if report.Failed > 0 {
		fmt.Fprintf(c.stderr, "%s: %d of %d policy families broke a safety property (rapid's minimal draws are above); repeat: %s\n", c.name, report.Failed, len(families), report.Repeat)
		return exitViolation
	}
	return exitOK
}

// fuzzFamilies resolves -policies ("" is every family).
func fuzzFamilies(policies string) ([]sim.PolicyFamily, error) {
	if policies == "" {
		return sim.PolicyFamilies(), nil
	}
	var families []sim.PolicyFamily
	for _, name := range strings.Split(policies, ",") {
		family, err := sim.PolicyFamilyByName(strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(families, func(f sim.PolicyFamily) bool { return f.Name == family.Name }) {
			return nil, fmt.Errorf("family %q named twice", family.Name)
		}
		families = append(families, family)
	}
	return families, nil
}

// fuzzRepeatCommand is the one command that repeats this fuzzing run draw for draw.
func (c *cli) fuzzRepeatCommand(seed uint64, checks int, policies string, sel *selection) string {
	cmd := c.self + " fuzz-policy"
	if sel.plant != "" {
		cmd += " -plant " + sel.plant
	}
	cmd += fmt.Sprintf(" -seed %d -checks %d", seed, checks)
	if policies != "" {
		cmd += " -policies " + shellQuote(policies)
	}
	if sel.faults != "" {
		cmd += " -faults " + shellQuote(sel.faults)
	}
	return cmd
}

// prepareRapid sets rapid's options, which it reads from the process's global flags (it was
// built for `go test`): the number of checks, the seed, and no fail files written into the
// current folder.
func prepareRapid(checks int, seed uint64) error {
	rapidOnce.Do(func() {
		testing.Init() // rapid asks testing.Short(), which needs the test flags registered and parsed
		if !flag.Parsed() {
			flag.CommandLine.Parse(nil)
		}
	})
	if testing.Short() {
		checks *= 5 // rapid runs a fifth of its checks under `go test -short`: run the number asked for
	}
	if err := flag.CommandLine.Set("rapid.checks", fmt.Sprint(checks)); err != nil {
		return err
	}
	if err := flag.CommandLine.Set("rapid.seed", fmt.Sprint(seed)); err != nil {
		return err
	}
	return flag.CommandLine.Set("rapid.nofailfile", "true")
}

var rapidOnce sync.Once

func indent(text string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString("  " + line + "\n")
	}
	return b.String()
}

// rapidReport is the rapid.TB fuzz-policy runs rapid.Check with: it records what rapid says and
// whether the check failed, instead of failing a test.
type rapidReport struct {
	name   string
	mu     sync.Mutex
	lines  []string
	failed bool
}

var _ rapid.TB = (*rapidReport)(nil)

func (r *rapidReport) Helper()      {}
func (r *rapidReport) Name() string { return "fuzz-policy/" + r.name }
func (r *rapidReport) Logf(format string, args ...any) {
	r.record(fmt.Sprintf(format, args...))
}
func (r *rapidReport) Log(args ...any) { r.record(fmt.Sprint(args...)) }
func (r *rapidReport) Skipf(format string, args ...any) {
	r.record(fmt.Sprintf(format, args...))
	runtime.Goexit()
}
func (r *rapidReport) Skip(args ...any)                  { r.record(fmt.Sprint(args...)); runtime.Goexit() }
func (r *rapidReport) SkipNow()                          { runtime.Goexit() }
func (r *rapidReport) Errorf(format string, args ...any) { r.fail(fmt.Sprintf(format, args...)) }
func (r *rapidReport) Error(args ...any)                 { r.fail(fmt.Sprint(args...)) }
func (r *rapidReport) Fatalf(format string, args ...any) {
	r.fail(fmt.Sprintf(format, args...))
	r.FailNow()
}
func (r *rapidReport) Fatal(args ...any) { r.fail(fmt.Sprint(args...)); r.FailNow() }
func (r *rapidReport) FailNow()          { r.Fail() }
func (r *rapidReport) Fail() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
}
func (r *rapidReport) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

func (r *rapidReport) record(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, line)
}

func (r *rapidReport) fail(line string) {
	r.record(line)
	r.Fail()
}

func (r *rapidReport) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var keep []string
	for _, l := range r.lines {
		if !strings.Contains(l, "To reproduce, specify -run") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
