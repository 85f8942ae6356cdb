package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/turnsim/turnsim/internal/faultserver"
	"github.com/turnsim/turnsim/sim"
)

// scaleMax bounds serve's -scale: a thousand times slower is already an hour per planned
// 3.6 s, and a larger factor only overflows the timers.
const scaleMax = 1000

// readSteps reads and checks a steps file (faultserver.ParseSteps), refusing a folder or a file
// over the limit before decoding it.
func readSteps(path string) ([]faultserver.Step, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("steps file: %v", err)
	}
	defer f.Close()
	info, err := f.Stat()
	switch {
	case err != nil:
		return nil, fmt.Errorf("steps file %s: %v", path, err)
	case info.IsDir():
		return nil, fmt.Errorf("steps file %s is a folder", path)
	case info.Mode().IsRegular() && info.Size() > faultserver.StepsBytesMax:
		return nil, fmt.Errorf("steps file %s is %s, over the %s limit", path, byteSize(info.Size()), byteSize(faultserver.StepsBytesMax))
	}
	steps, err := faultserver.ParseSteps(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return steps, nil
}

// runServe serves a provider plan over loopback HTTP, in both wire protocols, so that a real
// adapter (or curl) meets the simulator's faults over a real connection.
func runServe(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", "serve [-addr 127.0.0.1:0] [-script demo|chat | -seed N | -steps FILE] [-max-requests N] [-max-duration D] [-scale F]", stderr)
	addr := fs.String("addr", "127.0.0.1:0", "loopback address to listen on (127.0.0.1 only; port 0 picks one)")
	script := fs.String("script", "", "a named script: demo (every fault, one per request) or chat (what examples/chat meets)")
	seed := fs.Int64("seed", -1, "serve the provider plan of this seed's schedule")
	stepsFile := fs.String("steps", "", "serve the answers of this JSON file: a list in the format of a schedule's plan.answers, each with an optional wire form (README: simrun serve)")
	maxRequests := fs.Int("max-requests", 1000, "stop answering (503) after this many requests")
	maxDuration := fs.Duration("max-duration", 10*time.Minute, "stop by itself after this long")
	scale := fs.Float64("scale", 1, "multiply every planned delay by this (more than 0, at most 1000)")
	urlFile := fs.String("url-file", "", "also write the base URL to this file once listening (for scripts)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(rest) > 0 {
		return usageError(stderr, "serve takes no arguments, got %q", rest)
	}
	chosen := 0
	for _, set := range []bool{*script != "", *seed >= 0, *stepsFile != ""} {
		if set {
			chosen++
		}
	}
	if chosen > 1 {
		return usageError(stderr, "serve: choose one of -script, -seed and -steps")
	}
	if !(*scale > 0 && *scale <= scaleMax) {
		return usageError(stderr, "serve: -scale %g is not more than 0 and at most %g", *scale, scaleMax)
	}
	if *maxRequests < 0 || *maxDuration <= 0 {
		return usageError(stderr, "serve: -max-requests must not be negative and -max-duration must be positive")
	}
	var steps []faultserver.Step
	switch {
	case *script != "":
		if steps, err = faultserver.Script(*script); err != nil {
			return usageError(stderr, "serve: %v", err)
		}
	case *seed >= 0:
		steps = sim.ServedAnswers(sim.NewSchedule(*seed, nil), sim.Agent{})
	case *stepsFile != "":
		if steps, err = readSteps(*stepsFile); err != nil {
			return usageError(stderr, "serve: %v", err)
		}
	}
	server, err := faultserver.New(faultserver.Config{Steps: steps, MaxRequests: *maxRequests, MaxDuration: *maxDuration, Scale: *scale})
	if err != nil {
		return usageError(stderr, "serve: %v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	url, stopped, err := faultserver.Listen(ctx, *addr, server)
	if err != nil {
		return usageError(stderr, "serve: %v", err)
	}
	fmt.Fprintf(stdout, "serving %d planned answers on %s (OpenAI: %s/v1, Anthropic: %s); at most %d requests, for at most %v\n",
		len(steps), url, url, url, *maxRequests, *maxDuration)
	if *urlFile != "" {
		if err := os.WriteFile(*urlFile, []byte(url+"\n"), 0o644); err != nil {
			stop()
			<-stopped
			return usageError(stderr, "serve: %v", err)
		}
	}
	<-stopped
	fmt.Fprintf(stdout, "stopped after %d requests\n", server.Served())
	return exitOK
}
