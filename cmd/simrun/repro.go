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
	"github.com/turnsim/turnsim/sim/timeline"
)

func runRepro(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("repro", "repro (-seed S | SCHEDULE.json) [-faults a,b] [-log FILE] [-schedule FILE] [-html FILE]", stderr)
	seed := fs.Int64("seed", 0, "the seed to re-run")
	logFile := fs.String("log", "", "write the run's JSON Lines session log to FILE")
	scheduleFile := fs.String("schedule", "", "write the run's schedule (JSON) to FILE, to replay it later with 'simrun repro FILE'")
	htmlFile := fs.String("html", "", "write a self-contained HTML timeline of the run (an SVG chart in virtual time) to FILE")
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
	var inputs []namedPath
	switch {
	case seedSet && len(positional) > 0:
		return usageError(stderr, "repro takes -seed or a schedule file, not both")
	case seedSet:
		schedule = sim.NewSchedule(*seed, allowed)
	case len(positional) == 1:
		if sel.faults != "" {
			return usageError(stderr, "-faults shapes drawn schedules; a schedule file already fixes its faults")
		}
		inputs = []namedPath{{"schedule file", positional[0]}}
		data, err := readCapped(positional[0], scheduleFileBytesMax, "schedule file")
		if err != nil {
			return usageError(stderr, "%v", err)
		}
		if schedule, _, err = sim.LoadSchedule(data); err != nil {
			return usageError(stderr, "schedule file %s: %v", positional[0], err)
		}
	case len(positional) > 1:
		return usageError(stderr, "repro takes one schedule file, got %d: %q", len(positional), strings.Join(positional, " "))
	default:
		return usageError(stderr, "repro needs -seed S or one schedule file")
	}
	outputs := []namedPath{{"-log", *logFile}, {"-schedule", *scheduleFile}, {"-html", *htmlFile}}
	if err := checkOutputs(inputs, outputs); err != nil {
		return usageError(stderr, "%v", err)
	}
	workingOn(schedule.Seed)
	outcome := sim.RunSchedule(schedule)
	var written []output
	if *logFile != "" {
		written = append(written, output{*logFile, outcome.JSONL})
	}
	if *scheduleFile != "" {
		data, err := schedule.MarshalIndent()
		if err != nil {
			return usageError(stderr, "-schedule: %v", err)
		}
		written = append(written, output{*scheduleFile, append(data, '\n')})
	}
	if *htmlFile != "" {
		written = append(written, output{*htmlFile, timeline.HTML(timeline.FromOutcome(outcome))})
	}
	if err := writeAll(written); err != nil {
		return usageError(stderr, "%v", err)
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

// checkWritable refuses, before anything runs, an output path whose folder does not exist or
// that names a folder ("" is no output).
func checkWritable(path string) error {
	if path == "" {
		return nil
	}
	if info, err := os.Stat(filepath.Dir(path)); err != nil || !info.IsDir() {
		return fmt.Errorf("cannot write %s: its folder %s does not exist", path, filepath.Dir(path))
	}
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return fmt.Errorf("cannot write %s: it is a folder", path)
	}
	return nil
}

// output is a file to write.
type output struct {
	path string
	data []byte
}

// writeAll writes every output through a temporary file beside it, and renames them into place
// only once all are written: a failure leaves no file half-written and none written alone.
func writeAll(outputs []output) error {
	var temps []string
	defer func() {
		for _, t := range temps {
			os.Remove(t)
		}
	}()
	for _, o := range outputs {
		tmp, err := os.CreateTemp(filepath.Dir(o.path), "."+filepath.Base(o.path)+".*")
		if err != nil {
			return fmt.Errorf("cannot write %s: %w", o.path, err)
		}
		temps = append(temps, tmp.Name())
		_, err = io.Copy(tmp, bytes.NewReader(o.data))
		if closeErr := tmp.Close(); err == nil {
			err = closeErr
		}
		if err == nil {
			err = os.Chmod(tmp.Name(), 0o644)
		}
		if err != nil {
			return fmt.Errorf("cannot write %s: %w", o.path, err)
		}
	}
	for i, o := range outputs {
		if err := os.Rename(temps[i], o.path); err != nil {
			return fmt.Errorf("cannot write %s: %w", o.path, err)
		}
	}
	return nil
}
