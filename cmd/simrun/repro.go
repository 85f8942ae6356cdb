package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/turnsim/turnsim/sim"
)

func runRepro(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("repro", "repro (-seed S | SCHEDULE.json) [-faults a,b] [-log FILE] [-schedule FILE]", stderr)
	seed := fs.Int64("seed", 0, "the seed to re-run")
	logFile := fs.String("log", "", "write the run's JSON Lines session log to FILE")
	scheduleFile := fs.String("schedule", "", "write the run's schedule (JSON) to FILE, to replay it later with 'simrun repro FILE'")
	var sel selection
	sel.register(fs)
	positional, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	seedSet := false
	fs.Visit(func(f *flag.Flag) { seedSet = seedSet || f.Name == "seed" })
	allowed, err := sel.apply()
	if err != nil {
		return usageError(stderr, "%v", err)
	}
	var schedule sim.Schedule
	switch {
	case seedSet && len(positional) > 0:
		return usageError(stderr, "repro takes -seed or a schedule file, not both")
	case seedSet:
		schedule = sim.NewSchedule(*seed, allowed)
	case len(positional) == 1:
		if sel.faults != "" {
			return usageError(stderr, "-faults shapes drawn schedules; a schedule file already fixes its faults")
		}
		data, err := os.ReadFile(positional[0])
		if err != nil {
			return usageError(stderr, "schedule file: %v", err)
		}
		if schedule, err = sim.ParseSchedule(data); err != nil {
			return usageError(stderr, "schedule file %s: %v", positional[0], err)
		}
	default:
		return usageError(stderr, "repro needs -seed S or one schedule file")
	}
	outcome := sim.RunSchedule(schedule)
	if *logFile != "" {
		if err := writeFileAtomic(*logFile, outcome.JSONL); err != nil {
			return usageError(stderr, "-log: %v", err)
		}
	}
	if *scheduleFile != "" {
		data, err := schedule.MarshalIndent()
		if err == nil {
			err = writeFileAtomic(*scheduleFile, append(data, '\n'))
		}
		if err != nil {
			return usageError(stderr, "-schedule: %v", err)
		}
	}
	fmt.Fprintf(stdout, "seed %d: %d events, %.3f s of virtual time, faults that struck: %s\n",
		schedule.Seed, len(outcome.Log), outcome.VirtualDuration().Seconds(), strings.Join(outcome.Exercised, ", "))
	fmt.Fprint(stdout, sim.Timeline(outcome.Log, 0))
	if len(outcome.Violations) == 0 {
		fmt.Fprintln(stdout, "no violation")
		return exitOK
	}
	fmt.Fprintf(stdout, "%d violation(s):\n", len(outcome.Violations))
	for _, v := range outcome.Violations {
		fmt.Fprintf(stdout, "  %s\n", v)
	}
	return exitViolation
}

// writeFileAtomic writes data to path through a temporary file in the same folder, so a failed
// write never leaves a half-written file where a good one was.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, bytes.NewReader(data)); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
