package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/turnsim/turnsim/sim"
)

func runFuzzPolicy(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("fuzz-policy", "fuzz-policy [-policies a,b] [-checks N] [-faults a,b]", stderr)
	policies := fs.String("policies", "", "the policy families to fuzz (comma-separated; default: all)")
	checks := fs.Int("checks", 100, "how many parameter sets and schedules to try per family")
	var sel selection
	sel.register(fs)
	if code, ok := parseNoArguments(fs, args, stderr); !ok {
		return code
	}
	if *checks < 1 {
		return usageError(stderr, "-checks %d: need at least 1", *checks)
	}
	allowed, err := sel.apply()
	if err != nil {
		return usageError(stderr, "%v", err)
	}
	var families []sim.PolicyFamily
	if *policies == "" {
		families = sim.PolicyFamilies()
	} else {
		for _, name := range strings.Split(*policies, ",") {
			family, err := sim.PolicyFamilyByName(strings.TrimSpace(name))
			if err != nil {
				return usageError(stderr, "-policies: %v", err)
			}
			families = append(families, family)
		}
	}
	if err := prepareRapid(*checks); err != nil {
		return usageError(stderr, "%v", err)
	}
	failed := 0
	for _, family := range families {
		report := &rapidReport{name: family.Name}
		rapid.Check(report, func(t *rapid.T) { sim.CheckPolicy(t, family, allowed) })
		if report.Failed() {
			failed++
			fmt.Fprintf(stdout, "FAIL %s\n%s", family.Name, indent(report.text()))
		} else {
			fmt.Fprintf(stdout, "ok   %s (%d checks)\n", family.Name, *checks)
		}
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "simrun: %d of %d policy families broke a safety property (the draws above are rapid's minimal ones)\n", failed, len(families))
		return exitViolation
	}
	return exitOK
}

// prepareRapid sets rapid's options, which it reads from the process's global flags (it was
// built for `go test`): the number of checks, and no fail files written into the current folder.
func prepareRapid(checks int) error {
	rapidOnce.Do(func() {
		testing.Init() // rapid asks testing.Short(), which needs the test flags registered and parsed
		if !flag.Parsed() {
			flag.CommandLine.Parse(nil)
		}
	})
	if err := flag.CommandLine.Set("rapid.checks", fmt.Sprint(checks)); err != nil {
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
