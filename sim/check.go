package sim

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/properties"
)

// TestingT is what Check needs of a *testing.T: a test helper that can report errors. A t that
// also has Logf (a *testing.T does) is told the run's coverage when it passes, which `go test -v`
// shows, and any warning.
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
	// ShrinkBudget is the wall time spent minimising failures (default 10s; negative: no
	// shrinking): the lowest failing seed of a user's agent is shown shrunk, and with Corpus
	// each failing seed kept is saved shrunk.
	ShrinkBudget time.Duration
	// Corpus is a folder of corpus files ("": none): every file in it is replayed first, and
	// each new failing seed (the first ten) is shrunk and saved in it, so that a failure found
	// once is replayed by every later run until it is fixed.
	Corpus string
}

// SeedEnv names the environment variable that makes Check run one seed: the repro line of a
// user's agent (`TURNSIM_SEED=42 go test -run TestAgent`), since simrun cannot build their agent.
const SeedEnv = "TURNSIM_SEED"

// corpusKeptMax bounds how many failing seeds one Check saves in its corpus.
const corpusKeptMax = 10

// Check runs seeded schedules inside a user's own `go test` and reports every failing seed
// through t.Errorf, with its violations and one command that reproduces it:
//
//	func TestHarness(t *testing.T) { sim.Check(t, sim.CheckOptions{Seeds: 2000}) }
//
// With a user's Agent, an agent the harness refuses is reported once, as the configuration
// error it is, and no seed runs; the lowest failing seed is shrunk and its minimal schedule and
// timeline printed. With Corpus, the folder's schedules are replayed first and new failures
// saved there. A pass is summarised through t.Logf, when t has it (seeds, faults that struck,
// the agent's tools), with a warning for a tool whose wall time is far above its virtual time.
func Check(t TestingT, opts CheckOptions) {
	t.Helper()
	if opts.Seeds <= 0 {
		opts.Seeds = 1000
	}
	if opts.Start == 0 {
		opts.Start = 1
	}
	oneSeed := false
	if env := os.Getenv(SeedEnv); env != "" {
		seed, err := strconv.ParseInt(env, 10, 64)
		if err != nil {
			t.Errorf("sim: %s=%q is not a seed (an integer)", SeedEnv, env)
			return
		}
		opts.Start, opts.Seeds, oneSeed = seed, 1, true
	}
	if err := opts.Agent.Validate(); err != nil {
		t.Errorf("%v", err)
		return
	}
	replayed := 0
	if opts.Corpus != "" && !oneSeed {
		replayed = replayCorpus(t, opts)
	}
	timed, tools := TimeTools(opts.Agent)
	summary := RunSeeds(RunOptions{Start: opts.Start, Count: opts.Seeds, Workers: opts.Workers, Faults: opts.Faults, Agent: timed})
	if summary.ConfigError != "" {
		t.Errorf("%s", summary.ConfigError)
		return
	}
	logf := func(string, ...any) {}
	if l, ok := t.(interface{ Logf(string, ...any) }); ok {
		logf = l.Logf
	}
	for _, warning := range tools.Warnings() {
		logf("sim: warning: %s", warning)
	}
	for _, f := range summary.Failures {
		t.Errorf("%s", failureReport(t, f, opts))
	}
	if len(summary.Failures) == 0 {
		logf("%s", passReport(summary, tools.Coverage(), replayed, opts))
		return
	}
	if opts.Agent.userDefined() && opts.ShrinkBudget >= 0 {
		t.Errorf("%s", shrunkReport(summary.Failures[0], opts))
	}
	if opts.Corpus != "" {
		for _, saved := range keepInCorpus(summary.Failures, opts) {
			t.Errorf("%s", saved)
		}
	}
}

// failureReport is one failing seed: its violations, and the command that runs it again. The
// properties it broke are counted once each, however many violations one of them reported.
func failureReport(t TestingT, f SeedViolations, opts CheckOptions) string {
	var broken []string
	for _, v := range f.Violations {
		if !slices.Contains(broken, v.Property) {
			broken = append(broken, v.Property)
		}
	}
	message := fmt.Sprintf("seed %d broke %d %s (%s):", f.Seed, len(broken), pluralWord(len(broken), "property", "properties"), strings.Join(broken, ", "))
	for _, v := range f.Violations {
		message += "\n  " + v.String()
	}
	return message + "\n  reproduce: " + reproCommand(t, f.Seed, opts)
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// userDefined reports whether simrun could not run the agent: it is the user's, in its
// configuration or its properties.
func (a Agent) userDefined() bool { return a.custom() || len(a.Properties) > 0 }

// reproCommand is the one line that runs a failing seed again: simrun for turnsim's own agent,
// the user's own test (through SeedEnv) for theirs, named by its package's import path so that
// the line works from anywhere in the module (`.` worked only in the package's folder).
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
	return command + " " + testPackage()
}

// testPackage is the import path of the package whose test is running (its folder is the test's
// working directory), or "." when it cannot be told (no go.mod above it).
func testPackage() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for root := dir; ; root = filepath.Dir(root) {
		if data, err := os.ReadFile(filepath.Join(root, "go.mod")); err == nil {
			module := modulePath(data)
			rel, err := filepath.Rel(root, dir)
			if module == "" || err != nil {
				return "."
			}
			if rel == "." {
				return module
			}
			return module + "/" + filepath.ToSlash(rel)
		}
		if filepath.Dir(root) == root {
			return "."
		}
	}
}

// modulePath reads the module line of a go.mod ("" if it has none).
func modulePath(goMod []byte) string {
	for _, line := range strings.Split(string(goMod), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(strings.SplitN(strings.TrimSpace(rest), "//", 2)[0]), `"`)
		}
	}
	return ""
}

// shrinkBudget is opts.ShrinkBudget, or its default.
func shrinkBudget(opts CheckOptions) time.Duration {
	if opts.ShrinkBudget == 0 {
		return 10 * time.Second
	}
	return max(opts.ShrinkBudget, 0)
}

// shrunkReport minimises a failing seed for its first property and shows the smallest schedule
// that still breaks it, with the timeline of its run.
func shrunkReport(f SeedViolations, opts CheckOptions) string {
	property := f.Violations[0].Property
	r := ShrinkAgent(opts.Agent.Schedule(f.Seed, opts.Faults), property, shrinkBudget(opts), opts.Agent)
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

// replayCorpus runs every schedule of the corpus folder with the agent and reports each that
// breaks a property, or that cannot be read; it returns how many it replayed.
func replayCorpus(t TestingT, opts CheckOptions) int {
	t.Helper()
	files, err := CorpusFiles(opts.Corpus)
	if os.IsNotExist(err) {
		return 0 // nothing kept yet: the folder is made when a failure is saved
	}
	if err != nil {
		t.Errorf("sim: corpus %s: %v", opts.Corpus, err)
		return 0
	}
	for _, path := range files {
		schedule, err := readCorpusFile(path)
		if err != nil {
			t.Errorf("sim: corpus file %s: %v", path, err)
			continue
		}
		o := RunScheduleAgent(schedule, opts.Agent)
		if len(o.Violations) == 0 {
			continue
		}
		message := fmt.Sprintf("corpus file %s (seed %d) still breaks:", path, schedule.Seed)
		for _, v := range o.Violations {
			message += "\n  " + v.String()
		}
		t.Errorf("%s", message)
	}
	return len(files)
}

// readCorpusFile reads one corpus or schedule file, refusing one over ScheduleBytesMax before
// reading it.
func readCorpusFile(path string) (Schedule, error) {
	info, err := os.Stat(path)
	if err != nil {
		return Schedule{}, err
	}
	if info.Size() > ScheduleBytesMax {
		return Schedule{}, fmt.Errorf("%d bytes, over the %d a schedule file may hold", info.Size(), ScheduleBytesMax)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Schedule{}, err
	}
	s, _, err := LoadSchedule(data)
	return s, err
}

// keepInCorpus shrinks the first failing seeds for their first property, sharing the shrink
// budget, and saves each in the corpus folder; it returns what it did, a line per seed.
func keepInCorpus(failures []SeedViolations, opts CheckOptions) []string {
	var lines []string
	deadline := time.Now().Add(shrinkBudget(opts))
	for i, f := range failures {
		if i == corpusKeptMax {
			lines = append(lines, fmt.Sprintf("sim: kept the first %d failing seeds in %s", corpusKeptMax, opts.Corpus))
			break
		}
		property := f.Violations[0].Property
		if property == DeterminismProperty {
			continue
		}
		r := ShrinkAgent(opts.Agent.Schedule(f.Seed, opts.Faults), property, time.Until(deadline), opts.Agent)
		entry := CorpusEntry{Format: CorpusFormat, Version: CorpusVersion, Property: property, Seed: f.Seed, TurnsimVersion: Version,
			FoundBy: "sim.Check", SizeBefore: r.SizeBefore, SizeAfter: r.SizeAfter, Schedule: r.Schedule}
		path, err := SaveToCorpus(opts.Corpus, entry)
		if err != nil {
			lines = append(lines, fmt.Sprintf("sim: could not save seed %d in the corpus: %v", f.Seed, err))
			break
		}
		lines = append(lines, fmt.Sprintf("saved seed %d (shrunk for %s: size %d → %d) as %s: every later run replays it first", f.Seed, property, r.SizeBefore, r.SizeAfter, path))
	}
	return lines
}

// passReport summarises a run that found nothing: what it covered.
func passReport(s Summary, tools []ToolCoverage, replayed int, opts CheckOptions) string {
	var b strings.Builder
	own := len(opts.Agent.Seeded().Properties)
	fmt.Fprintf(&b, "sim: %d seeds (from %d) passed %d properties", s.Seeds, s.FirstSeed, len(properties.Names())+own)
	if own > 0 {
		fmt.Fprintf(&b, " (%d of them the agent's own)", own)
	}
	if opts.Corpus != "" {
		fmt.Fprintf(&b, ", after replaying %d corpus file%s from %s", replayed, pluralWord(replayed, "", "s"), opts.Corpus)
	}
	var struck, never []string
	for _, name := range faults.Names() {
		if n := s.FaultCoverage[name]; n > 0 {
			struck = append(struck, fmt.Sprintf("%s %d", name, n))
		} else if len(opts.Faults) == 0 || slices.Contains(opts.Faults, name) {
			never = append(never, name)
		}
	}
	fmt.Fprintf(&b, "\n  faults that struck (seeds): %s", strings.Join(struck, ", "))
	if len(never) > 0 {
		fmt.Fprintf(&b, "\n  faults that never struck: %s (more seeds reach them)", strings.Join(never, ", "))
	}
	var outcomes []string
	for _, kind := range sortedCoverageKeys(s.OutcomeCoverage) {
		outcomes = append(outcomes, fmt.Sprintf("%s %d", kind, s.OutcomeCoverage[kind]))
	}
	fmt.Fprintf(&b, "\n  turn outcomes (seeds): %s", strings.Join(outcomes, ", "))
	if len(tools) > 0 {
		var ran []string
		for _, tool := range tools {
			ran = append(ran, fmt.Sprintf("%s %d runs (%d errors)", tool.Name, tool.Runs, tool.Errors))
		}
		fmt.Fprintf(&b, "\n  the agent's tools: %s", strings.Join(ran, ", "))
	}
	return b.String()
}

func sortedCoverageKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
