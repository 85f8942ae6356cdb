package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/turnsim/turnsim/internal/faultserver"
	"github.com/turnsim/turnsim/sim"
)

// runServe serves a provider plan over loopback HTTP, in both wire protocols, so that a real
// adapter (or curl) meets the simulator's faults over a real connection.
func runServe(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", "serve [-addr 127.0.0.1:0] [-script demo|chat | -seed N | -steps FILE] [-max-requests N] [-max-duration D] [-scale F]", stderr)
	addr := fs.String("addr", "127.0.0.1:0", "loopback address to listen on (127.0.0.1 only; port 0 picks one)")
	script := fs.String("script", "", "a named script: demo (every fault, one per request) or chat (what examples/chat meets)")
	seed := fs.Int64("seed", -1, "serve the provider plan of this seed's schedule")
	stepsFile := fs.String("steps", "", "serve the steps of this JSON file (a list of {answer fields, retryAfterForm, malformed, stallMs})")
	maxRequests := fs.Int("max-requests", 1000, "stop answering (503) after this many requests")
	maxDuration := fs.Duration("max-duration", 10*time.Minute, "stop by itself after this long")
	scale := fs.Float64("scale", 1, "multiply every planned delay by this")
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
	var steps []faultserver.Step
	switch {
	case *script != "":
		if steps, err = faultserver.Script(*script); err != nil {
			return usageError(stderr, "serve: %v", err)
		}
	case *seed >= 0:
		plan := sim.NewSchedule(*seed, nil).Plan
		steps = faultserver.FromPlan(&plan)
	case *stepsFile != "":
		data, err := os.ReadFile(*stepsFile)
		if err != nil {
			return usageError(stderr, "serve: %v", err)
		}
		if err := json.Unmarshal(data, &steps); err != nil {
			return usageError(stderr, "serve: %s: not a JSON list of steps: %v", *stepsFile, err)
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
