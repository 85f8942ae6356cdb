package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The current figures of docs/performance.md: measured, not read off the code, so they change
// with the machine and its load. `go run ./cmd/docgen -measure` takes them and writes the block;
// without -measure the block is kept as it was measured (a check cannot time a run again), but it
// must be there.

// benchCommand is how the schedule benchmark is run: five runs of 3,000 schedules, the median
// taken.
var benchCommand = []string{"go", "test", "./sim", "-run", "^$", "-bench", "Schedules$", "-benchmem", "-benchtime", "3000x", "-count", "5"}

// sweepSeeds is how many seeds the whole-run figure sweeps with a built simrun.
const sweepSeeds = 100_000

// measuredTable runs the schedule benchmark and a sweep of simrun, in the module at root, and
// writes the current figures as a table.
func measuredTable(root string) (string, error) {
	bench, err := runBench(root)
	if err != nil {
		return "", err
	}
	sweep, err := runSweep(root)
	if err != nil {
		return "", err
	}
	commit, _ := output(root, "git", "rev-parse", "--short", "HEAD")
	var b strings.Builder
	fmt.Fprintf(&b, "Taken %s at %s with %s, GOMAXPROCS %d, by `go run ./cmd/docgen -measure`.\n\n",
		time.Now().UTC().Format("2006-01-02"), strings.TrimSpace(commit), runtime.Version(), runtime.GOMAXPROCS(0))
	b.WriteString("| figure | value | how |\n| --- | --- | --- |\n")
	fmt.Fprintf(&b, "| a schedule of the default mix, wall | %.0f µs (median of 5) | `%s` |\n", bench.wallUs, strings.Join(benchCommand, " "))
	fmt.Fprintf(&b, "| a schedule, CPU | %.0f µs | the same (`cpu-µs/op`) |\n", bench.cpuUs)
	fmt.Fprintf(&b, "| a schedule, memory | %.1f KB in %d allocations | the same (`-benchmem`) |\n", bench.bytes/1000, bench.allocs)
	fmt.Fprintf(&b, "| %s seeds with a built simrun | %.1f s wall, %.1f CPU-seconds, max RSS %.1f MB, %d violations | `simrun run -seeds %d -shrink-time 0 -corpus \"\" -json -progress never` |\n",
		strings.TrimSuffix(thousands(sweepSeeds), ".0"), sweep.wallSeconds, sweep.cpuSeconds, sweep.maxRSSMB, sweep.violations, sweepSeeds)
	return b.String(), nil
}

// benchFigures are the medians of the benchmark's runs.
type benchFigures struct {
	wallUs, cpuUs, bytes float64
	allocs               int
}

var benchLine = regexp.MustCompile(`^BenchmarkSchedules\S*\s+\d+\s+([\d.]+) ns/op\s+([\d.]+) cpu-µs/op.*?\s([\d.]+) B/op\s+(\d+) allocs/op`)

func runBench(root string) (benchFigures, error) {
	out, err := output(root, benchCommand[0], benchCommand[1:]...)
	if err != nil {
		return benchFigures{}, fmt.Errorf("%s: %v\n%s", strings.Join(benchCommand, " "), err, out)
	}
	var wall, cpu, bytes []float64
	var allocs []int
	scanner := bufio.NewScanner(strings.NewReader(out))
	for scanner.Scan() {
		m := benchLine.FindStringSubmatch(scanner.Text())
		if m == nil {
			continue
		}
		ns, _ := strconv.ParseFloat(m[1], 64)
		c, _ := strconv.ParseFloat(m[2], 64)
		b, _ := strconv.ParseFloat(m[3], 64)
		a, _ := strconv.Atoi(m[4])
		wall, cpu, bytes, allocs = append(wall, ns/1000), append(cpu, c), append(bytes, b), append(allocs, a)
	}
	if len(wall) == 0 {
		return benchFigures{}, fmt.Errorf("%s printed no BenchmarkSchedules line:\n%s", strings.Join(benchCommand, " "), out)
	}
	return benchFigures{median(wall), median(cpu), median(bytes), slices.Max(allocs)}, nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// sweepFigures are what one sweep of a built simrun cost.
type sweepFigures struct {
	wallSeconds, cpuSeconds, maxRSSMB float64
	violations                        int
}

func runSweep(root string) (sweepFigures, error) {
	dir, err := os.MkdirTemp("", "docgen-simrun-")
	if err != nil {
		return sweepFigures{}, err
	}
	defer os.RemoveAll(dir)
	binary := filepath.Join(dir, "simrun")
	if out, err := output(root, "go", "build", "-o", binary, "./cmd/simrun"); err != nil {
		return sweepFigures{}, fmt.Errorf("go build ./cmd/simrun: %v\n%s", err, out)
	}
	cmd := exec.Command(binary, "run", "-seeds", strconv.Itoa(sweepSeeds), "-shrink-time", "0", "-corpus", "", "-json", "-progress", "never")
	cmd.Dir = root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	runErr := cmd.Run()
	wall := time.Since(began).Seconds()
	if runErr != nil && cmd.ProcessState == nil {
		return sweepFigures{}, fmt.Errorf("simrun run: %v", runErr)
	}
	var summary struct {
		Violations int `json:"violations"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &summary); err != nil {
		return sweepFigures{}, fmt.Errorf("simrun run: its summary: %v\n%s", err, stderr.String())
	}
	state := cmd.ProcessState
	return sweepFigures{
		wallSeconds: wall,
		cpuSeconds:  (state.UserTime() + state.SystemTime()).Seconds(),
		maxRSSMB:    maxRSSMB(state),
		violations:  summary.Violations,
	}, nil
}

// output runs name with args in dir and returns what it printed, both streams.
func output(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}
