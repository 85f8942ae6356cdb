package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/turnsim/turnsim/internal/atomicfile"
	"github.com/turnsim/turnsim/sim"
)

// replaySearchMax bounds replay -search: each seed tried is a whole replay of the log.
const replaySearchMax = 100_000

// replay turns an incident's session log into a schedule and runs it on this command's agent:
// run on the code that wrote the incident, the replay writes its log again and the properties say
// what broke; run on a fix, it says whether the fix holds for the incident (exit 0 or 1, as
// repro). -o keeps the schedule, for repro and shrink.
func (c *cli) replay(args []string) int {
	fs := c.flagSet("replay", "replay [-search N] [-late D] [-o FILE] [-log FILE] [-plant NAME] LOG.jsonl")
	var s selection
	s.registerPlant(fs, c.name)
	search := fs.Int("search", 1, "try this many seeds for what the log leaves open (same-instant orders), keeping the first whose log matches the incident's")
	late := fs.Duration("late", sim.DefaultLateMs*time.Millisecond, "how far apart the incident's and the replay's times of an event may be (a production log's timers fire late)")
	output := fs.String("o", "", "write the replay's schedule to FILE (then: repro FILE, shrink FILE -property NAME)")
	logFile := fs.String("log", "", "write the replay's JSON Lines session log to FILE")
	positional, err := ParseFlags(fs, args)
	if err != nil {
		return FlagExit(err)
	}
	switch {
	case len(positional) != 1:
		return c.usageError("replay takes one session log, got %d", len(positional))
	case *search < 1:
		return c.usageError("replay: -search %d: try at least one seed", *search)
	case *search > replaySearchMax:
		return c.usageError("replay: -search %d: at most %d seeds (each is a whole replay)", *search, replaySearchMax)
	case *late < 0:
		return c.usageError("replay: -late %v is negative", *late)
	}
	if err := setPlant(s.plant); err != nil {
		return c.usageError("replay: %v", err)
	}
	path := positional[0]
	if err := checkOutputs([]namedPath{{"incident's log", path}}, []namedPath{{"-o", *output}, {"-log", *logFile}}); err != nil {
		return c.usageError("replay: %v", err)
	}
	data, reason := readLog(path) // line by line first: a bad file costs what its first lines do
	if reason != "" {
		return c.usageError("replay: %s: %s", path, reason)
	}
	if data == nil { // a regular file, known to decode: read it whole
		if data, err = readAtMost(path, sessionLogBytesMax); err != nil {
			return c.usageError("replay: %v", err)
		}
	}
	events, err := sim.ReadSessionLog(path, data)
	if err != nil {
		return c.usageError("%s", strings.TrimPrefix(err.Error(), sim.ErrBadLog.Error()+": "))
	}
	lateMs := late.Milliseconds()
	if lateMs == 0 {
		lateMs = -1 // exact: ReplayOptions reads 0 as the default
	}
	r, err := sim.ReplayLog(path, events, data, sim.ReplayOptions{Agent: c.opts.Agent, Search: *search, LateMs: lateMs})
	if err != nil {
		if errors.Is(err, sim.ErrBadLog) {
			return c.usageError("%s", err)
		}
		return c.usageError("%v (no schedule tells this log's story)", err)
	}
	var written []atomicfile.File
	if *output != "" {
		data, err := r.Schedule.MarshalIndent()
		if err != nil {
			panic(fmt.Sprintf("sim/cli: invariant: a derived schedule encodes: %v", err))
		}
		if size := int64(len(data) + 1); size > sim.ScheduleBytesMax {
			return c.usageError("replay: -o %s: the schedule is %s, over the %s a schedule file may be (repro and shrink would refuse it): the log's texts and arguments make it that large; nothing was written", *output, byteSize(size), byteSize(sim.ScheduleBytesMax))
		}
		if _, err := sim.ParseSchedule(data); err != nil { // its other limits, as repro and shrink read it
			return c.usageError("replay: -o %s: the schedule is not one repro would read (%v): nothing was written", *output, err)
		}
		written = append(written, atomicfile.File{Path: *output, Data: append(data, '\n')})
	}
	c.printReplay(path, r)
	if *logFile != "" {
		written = append(written, atomicfile.File{Path: *logFile, Data: r.Outcome.JSONL})
	}
	if err := atomicfile.WriteAll(written); err != nil {
		return c.usageError("replay: %s", outputErrorText(err))
	}
	if *output != "" {
		fmt.Fprintf(c.stdout, "schedule: %s (reproduce: %s)\n", *output, c.reproFileCommand(&s, *output))
	}
	if len(r.Outcome.Violations) > 0 {
		return exitViolation
	}
	return exitOK
}

// printReplay says what the derivation found, what the incident's log breaks on its own, whether
// the replay wrote it again, and what the replay breaks.
func (c *cli) printReplay(path string, r sim.ReplayResult) {
	d := r.Derivation
	plan := r.Schedule.Plan
	fmt.Fprintf(c.stdout, "%s: %d events, %d incarnation(s); derived %d answers and %d actions, policy %s\n",
		path, d.Events, d.Incarnations, len(plan.Answers), len(plan.Actions), plan.Policy.PolicyKey())
	if n := len(d.Undetermined); n > 0 {
		fmt.Fprintf(c.stdout, "not in the log (%d), picked as its times imply:\n", n)
		for _, note := range d.Undetermined {
			fmt.Fprintf(c.stdout, "  %s\n", note)
		}
	}
	start := r.Schedule.Replay.StartMs // violations are timed from the log's start, as its timeline
	if len(r.Incident) == 0 {
		fmt.Fprintln(c.stdout, "incident: the log breaks none of the properties a log alone can judge")
	}
	for _, v := range r.Incident {
		if v.AtMs >= start {
			v.AtMs -= start
		}
		fmt.Fprintf(c.stdout, "incident: %s\n", v)
	}
	if r.Matched() {
		fmt.Fprintf(c.stdout, "replay (seed %d, %d tried): the log matches the incident's, event for event\n", r.Schedule.Seed, r.Tried)
	} else {
		fmt.Fprintf(c.stdout, "replay (%d seed(s) tried): the log departs from the incident's at %s\n", r.Tried, r.Mismatch)
	}
	if len(r.Outcome.Violations) == 0 {
		fmt.Fprintln(c.stdout, "replay: no violations")
	}
	for _, v := range r.Outcome.Violations {
		if v.AtMs >= start {
			v.AtMs -= start
		}
		fmt.Fprintf(c.stdout, "replay: %s\n", v)
	}
}
