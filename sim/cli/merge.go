package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/turnsim/turnsim/internal/jsonlimit"
	"github.com/turnsim/turnsim/sim"
)

// summaryFileBytesMax bounds one shard's -json summary given to merge: its failures list (the
// lowest 1,000 failing seeds, with their violations) is the only part that grows, by a few
// hundred bytes per violation.
const summaryFileBytesMax = 32 << 20

// summaryLimits bound a summary's shape while it is read, before it is decoded: its deepest
// value is a violation inside a failure (depth 4); its longest lists a failing seed's violations
// (at most 20 per property) and the failures (sim.FailuresKept).
var summaryLimits = jsonlimit.Limits{
	Bytes:         summaryFileBytesMax,
	Depth:         8,
	Elements:      100_000,
	StringBytes:   1 << 20,
	DuplicateKeys: true,
}

// merge combines the -json summaries of `run -shard i/n` runs, one per shard, into the summary of
// the whole range, so that a CI matrix or a batch job's shards give one verdict.
//
// Every count, coverage, failure and list is combined exactly (sums, unions in seed order), so
// it equals the unsharded run's; the timings say what the shards did together (wallSeconds the
// longest shard's, rates summed, workers summed, the slowest seeds of all). The digest is
// combined by combineDigests: the shards' digests add up to the whole run's.
func (c *cli) merge(args []string) int {
	fs := c.flagSet("merge", "merge [-json] SHARD.json…  (the -json summaries of run -shard 1/n … n/n)")
	asJSON := fs.Bool("json", false, "print the merged summary as one JSON object on stdout")
	files, err := ParseFlags(fs, args)
	if err != nil {
		return FlagExit(err)
	}
	if len(files) == 0 {
		return c.usageError("merge needs the -json summaries of every shard: %s merge a.json b.json …", c.name)
	}
	shards := make([]runReport, len(files))
	for i, path := range files {
		if shards[i], err = readSummary(path); err != nil {
			return c.usageError("%v", err)
		}
	}
	merged, err := mergeSummaries(files, shards)
	if err != nil {
		return c.usageError("merge: %v", err)
	}
	if merged.Digest, err = combineDigests(shards); err != nil {
		return c.usageError("merge: %v", err)
	}
	if *asJSON {
		out, err := json.Marshal(merged)
		if err != nil {
			panic(c.name + ": invariant: a merged summary always encodes: " + err.Error())
		}
		fmt.Fprintln(c.stdout, string(out))
	} else {
		c.printSummary(merged, mergedWorkers(shards))
	}
	if merged.Violations > 0 {
		c.printFailures(merged.Summary, &selection{faults: strings.Join(merged.Faults, ","), plant: merged.Plant})
		return exitViolation
	}
	return exitOK
}

// mergedWorkers says how the shards' workers ran: on as many machines as shards, not as one
// machine's workers.
func mergedWorkers(shards []runReport) string {
	counts := map[int]int{}
	for _, s := range shards {
		counts[s.Workers]++
	}
	var parts []string
	for _, workers := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%d of %d worker%s", counts[workers], workers, plural(workers)))
	}
	return fmt.Sprintf("%d shards: %s", len(shards), strings.Join(parts, ", "))
}

// readSummary reads one shard's -json summary, refusing a file that is not one: too large, not
// JSON, a key twice, a key this build does not know (a newer summary would be merged wrong), or a
// key missing. The file's shape is checked while it is read (summaryLimits), before anything is
// decoded from it, so a huge bad file costs no more memory than a small one.
func readSummary(path string) (runReport, error) {
	var r runReport
	f, info, err := openInput(path, "summary")
	if err != nil {
		return r, err
	}
	defer f.Close()
	if info.Mode().IsRegular() && info.Size() > summaryFileBytesMax {
		return r, fmt.Errorf("summary %s is %s, over the %s limit", path, byteSize(info.Size()), byteSize(summaryFileBytesMax))
	}
	known, seen := summaryKeys(), map[string]bool{}
	data, err := readSummaryBytes(f, func(key string) error {
		if !slices.Contains(known, key) && key != "interrupted" { // optional: there only when true
			return fmt.Errorf("unknown field %q (a summary from another version?)", key)
		}
		seen[key] = true
		return nil
	})
	if err != nil {
		return r, fmt.Errorf("summary %s: not the JSON object of run -json: %v", path, err)
	}
	if data[0] != '{' {
		return r, fmt.Errorf("summary %s: not the JSON object of run -json", path)
	}
	for _, key := range known {
		if !seen[key] {
			return r, fmt.Errorf("summary %s: no %q key: not the summary of run -json (or of an older version)", path, key)
		}
	}
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(&r); err != nil {
		return r, fmt.Errorf("summary %s: %v (a summary from another version?)", path, err)
	}
	return r, nil
}

// readSummaryBytes reads a summary, checking its shape (summaryLimits) as the bytes come; the
// bytes are kept only once the whole file has passed.
func readSummaryBytes(f *os.File, topKey func(string) error) ([]byte, error) {
	var kept bytes.Buffer
	tee := io.TeeReader(io.LimitReader(f, summaryFileBytesMax+1), &kept) // the LimitReader bounds what kept holds
	limits := summaryLimits
	limits.TopKey = topKey
	if err := jsonlimit.Check(tee, limits); err != nil {
		var e *jsonlimit.Error
		if errors.As(err, &e) {
			return nil, fmt.Errorf("at byte %d: %s", e.Offset, e.Reason)
		}
		return nil, err
	}
	return bytes.TrimSpace(kept.Bytes()), nil
}

// summaryKeys are the keys of run -json's object.
func summaryKeys() []string {
	data, _ := json.Marshal(runReport{})
	var keys map[string]json.RawMessage
	json.Unmarshal(data, &keys)
	return slices.Sorted(maps.Keys(keys))
}

// mergeSummaries checks that the summaries are the shards 1/n … n/n of one run, each once, and
// combines them.
func mergeSummaries(files []string, shards []runReport) (runReport, error) {
	if err := checkShardSet(files, shards); err != nil {
		return runReport{}, err
	}
	m := runReport{Summary: sim.Summary{
		FirstSeed: shards[0].FirstSeed, Shard: sim.Shard{}.String(),
		ViolationsByProperty: map[string]int{}, FailingSeeds: []int64{}, Failures: []sim.SeedViolations{},
		FaultCoverage: map[string]int{}, OutcomeCoverage: map[string]int{}, SlowestSeeds: []sim.SlowSeed{},
	}, DeterminismChecked: shards[0].DeterminismChecked, Faults: shards[0].Faults, Plant: shards[0].Plant}
	coreSeconds := 0.0
	var simMs int64 // virtual time is whole milliseconds: summed as integers, it is exact
	for _, s := range shards {
		m.Seeds += s.Seeds
		m.Workers += s.Workers
		m.Violations += s.Violations
		m.FailingSeedCount += s.FailingSeedCount
		m.Handoffs += s.Handoffs
		simMs += int64(math.Round(s.SimSeconds * 1000))
		m.WallSeconds = max(m.WallSeconds, s.WallSeconds)
		m.SchedulesPerSecond += s.SchedulesPerSecond
		m.SimSecondsPerWallSecond += s.SimSecondsPerWallSecond
		if s.SchedulesPerSecondCore > 0 {
			coreSeconds += float64(s.Seeds) / s.SchedulesPerSecondCore
		}
		addCounts(m.ViolationsByProperty, s.ViolationsByProperty)
		addCounts(m.FaultCoverage, s.FaultCoverage)
		addCounts(m.OutcomeCoverage, s.OutcomeCoverage)
		m.FailingSeeds = append(m.FailingSeeds, s.FailingSeeds...)
		m.Failures = append(m.Failures, s.Failures...)
		m.SlowestSeeds = append(m.SlowestSeeds, s.SlowestSeeds...)
	}
	m.SimSeconds = float64(simMs) / 1000
	if coreSeconds > 0 {
		m.SchedulesPerSecondCore = float64(m.Seeds) / coreSeconds
	}
	slices.Sort(m.FailingSeeds)
	sort.SliceStable(m.Failures, func(i, j int) bool { return m.Failures[i].Seed < m.Failures[j].Seed })
	m.FailingSeeds = m.FailingSeeds[:min(len(m.FailingSeeds), sim.FailuresKept)] // the lowest, as one run keeps
	m.Failures = m.Failures[:min(len(m.Failures), sim.FailuresKept)]
	sort.SliceStable(m.SlowestSeeds, func(i, j int) bool {
		a, b := m.SlowestSeeds[i], m.SlowestSeeds[j]
		if a.WallMs != b.WallMs {
			return a.WallMs > b.WallMs
		}
		return a.Seed < b.Seed
	})
	m.SlowestSeeds = m.SlowestSeeds[:min(len(m.SlowestSeeds), sim.SlowestSeedsShown)]
	return m, nil
}

func addCounts(into, from map[string]int) {
	for k, n := range from {
		into[k] += n
	}
}

// checkShardSet refuses summaries that are not exactly the shards 1/n … n/n of one run: another
// n, a shard twice or missing, another first seed or seed count, another fault catalogue, or
// -check-determinism, -faults or -plant other on some than on others.
func checkShardSet(files []string, shards []runReport) error {
	parsed := make([]sim.Shard, len(shards))
	for i, s := range shards {
		shard, err := sim.ParseShard(s.Shard)
		if err != nil {
			return fmt.Errorf("%s: %v", files[i], err)
		}
		parsed[i] = shard
	}
	n := parsed[0].Of
	seen := map[int]string{}
	total := 0
	for i, s := range shards {
		switch {
		case parsed[i].Of != n:
			return fmt.Errorf("%s is shard %s but %s is shard %s: shards of one run share n", files[i], s.Shard, files[0], shards[0].Shard)
		case seen[parsed[i].Index] != "":
			return fmt.Errorf("%s and %s are both shard %s", seen[parsed[i].Index], files[i], s.Shard)
		case s.FirstSeed != shards[0].FirstSeed:
			return fmt.Errorf("%s starts at seed %d but %s at %d: not shards of one run", files[i], s.FirstSeed, files[0], shards[0].FirstSeed)
		case s.DeterminismChecked != shards[0].DeterminismChecked:
			return fmt.Errorf("%s and %s differ on -check-determinism: not shards of one run", files[i], files[0])
		case !slices.Equal(s.Faults, shards[0].Faults):
			return fmt.Errorf("%s ran %s but %s ran %s: not shards of one run", files[i], faultsText(s.Faults), files[0], faultsText(shards[0].Faults))
		case s.Interrupted:
			return fmt.Errorf("%s is the summary of a run that was interrupted: not every seed of its shard ran; run that shard again", files[i])
		case s.Plant != shards[0].Plant:
			return fmt.Errorf("%s ran %s but %s ran %s: not shards of one run", files[i], plantText(s.Plant), files[0], plantText(shards[0].Plant))
		case !slices.Equal(slices.Sorted(maps.Keys(s.FaultCoverage)), slices.Sorted(maps.Keys(shards[0].FaultCoverage))):
			return fmt.Errorf("%s and %s list different faults: summaries of different versions", files[i], files[0])
		}
		seen[parsed[i].Index] = files[i]
		total += s.Seeds
	}
	for index := 1; index <= n; index++ {
		if seen[index] == "" {
			return fmt.Errorf("shard %d/%d is missing: merge needs every shard of the run, each once", index, n)
		}
	}
	for i, s := range shards { // each shard's size follows from the total: the same -seeds everywhere
		if want := (sim.RunOptions{Count: total, Shard: parsed[i]}).Selected(); s.Seeds != want {
			return fmt.Errorf("%s ran %d seeds, but shard %s of a %d-seed range has %d: the shards ran different -seeds", files[i], s.Seeds, s.Shard, total, want)
		}
		if err := checkShardCounts(s, parsed[i], total); err != nil {
			return fmt.Errorf("%s: %v: not the summary of a run of this simrun", files[i], err)
		}
	}
	return nil
}

// checkShardCounts refuses counts no run can produce: negative ones, more failing seeds than
// seeds or than violations, a failing seed outside the shard, coverage above the seeds run.
func checkShardCounts(s runReport, shard sim.Shard, total int) error {
	switch {
	case s.Violations < 0 || s.FailingSeedCount < 0:
		return fmt.Errorf("negative counts (violations %d, failingSeedCount %d)", s.Violations, s.FailingSeedCount)
	case s.FailingSeedCount > s.Seeds:
		return fmt.Errorf("%d failing seeds of %d run", s.FailingSeedCount, s.Seeds)
	case s.Violations < s.FailingSeedCount:
		return fmt.Errorf("%d violations for %d failing seeds (each fails with one at least)", s.Violations, s.FailingSeedCount)
	case len(s.FailingSeeds) > s.FailingSeedCount:
		return fmt.Errorf("%d failing seeds listed, %d counted", len(s.FailingSeeds), s.FailingSeedCount)
	}
	byProperty := 0
	for name, n := range s.ViolationsByProperty {
		if n < 0 {
			return fmt.Errorf("violationsByProperty %s is negative", name)
		}
		byProperty += n
	}
	if byProperty != s.Violations {
		return fmt.Errorf("violationsByProperty adds up to %d, violations says %d", byProperty, s.Violations)
	}
	for _, seed := range s.FailingSeeds {
		at := seed - s.FirstSeed // the seed's place in the whole range
		if at < 0 || at >= int64(total) || (shard.Of > 1 && int(at)%shard.Of != shard.Index-1) {
			return fmt.Errorf("failing seed %d is not one of shard %s's %d seeds from %d", seed, shard, s.Seeds, s.FirstSeed)
		}
	}
	for name, n := range s.FaultCoverage {
		if n < 0 || n > s.Seeds {
			return fmt.Errorf("faultCoverage %s is %d of %d seeds", name, n, s.Seeds)
		}
	}
	for name, n := range s.OutcomeCoverage {
		if n < 0 || n > s.Seeds {
			return fmt.Errorf("outcomeCoverage %s is %d of %d seeds", name, n, s.Seeds)
		}
	}
	return nil
}

// combineDigests gives the merged summary's digest from the shards': the run digest is a sum of
// per-seed hashes modulo 2^256 (see sim.Summary.Digest), so the shards' digests add up to the
// unsharded run's.
func combineDigests(shards []runReport) (string, error) {
	digests := make([]string, len(shards))
	for i, s := range shards {
		digests[i] = s.Digest
	}
	return sim.AddDigests(digests...)
}

func faultsText(faults []string) string {
	if len(faults) == 0 {
		return "the whole fault catalogue"
	}
	return "-faults " + strings.Join(faults, ",")
}

func plantText(plant string) string {
	if plant == "" {
		return "no mutant"
	}
	return "-plant " + plant
}
