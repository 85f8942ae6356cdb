package cli

import (
	"fmt"
	"time"

	"github.com/turnsim/turnsim/internal/atomicfile"
	"github.com/turnsim/turnsim/internal/faultserver"
	"github.com/turnsim/turnsim/sim"
)

// scaleMax bounds serve's -scale: a thousand times slower is already an hour per planned
// 3.6 s, and a larger factor only overflows the timers.
const scaleMax = 1000

// readSteps reads and checks a steps file (faultserver.ParseSteps), refusing a folder or a file
// over the limit before decoding it; the decoder stops at the limit too, for a pipe.
func readSteps(path string) ([]faultserver.Step, error) {
	f, info, err := openInput(path, "steps file")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info.Mode().IsRegular() && info.Size() > faultserver.StepsBytesMax {
		return nil, fmt.Errorf("steps file %s is %s, over the %s limit", path, byteSize(info.Size()), byteSize(faultserver.StepsBytesMax))
	}
	steps, err := faultserver.ParseSteps(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return steps, nil
}

// serve serves a provider plan over loopback HTTP, in both wire protocols, so that a real
// adapter (or curl) meets the simulator's faults over a real connection. A seed's plan is served
// for this command's agent: its calls named after the agent's tools, with the arguments its
// Arguments draws, so that the agent's production build can be run against it.
func (c *cli) serve(args []string) int {
	fs := c.flagSet("serve", "serve [-addr 127.0.0.1:0] [-script demo|chat | -seed N | -steps FILE] [-max-requests N] [-max-duration D] [-scale F] [-url-file FILE]")
	addr := fs.String("addr", "127.0.0.1:0", "loopback address to listen on (127.0.0.1 only; port 0 picks one)")
	script := fs.String("script", "", "a named script: demo (every fault, one per request) or chat (what examples/chat meets)")
	seed := fs.Int64("seed", 0, "serve the provider plan of this seed's schedule, its calls named after this command's tools (any int64, as run and repro take)")
	stepsFile := fs.String("steps", "", "serve the answers of this JSON file: a list in the format of a schedule's plan.answers, each with an optional wire form and per-call arguments (docs/wire.md)")
	maxRequests := fs.Int("max-requests", 1000, "stop answering (503) after this many requests")
	maxDuration := fs.Duration("max-duration", 10*time.Minute, "stop by itself after this long")
	scale := fs.Float64("scale", 1, "multiply every planned delay by this (more than 0, at most 1000)")
	urlFile := fs.String("url-file", "", "also write the base URL to this file once listening (for scripts)")
	if code, ok := c.parseNoArguments(fs, args); !ok {
		return code
	}
	seedSet := setFlags(fs)["seed"] // any int64 is a seed: whether the flag was given is what counts
	chosen := 0
	for _, set := range []bool{*script != "", seedSet, *stepsFile != ""} {
		if set {
			chosen++
		}
	}
	switch {
	case chosen > 1:
		return c.usageError("serve: choose one of -script, -seed and -steps")
	case !(*scale > 0 && *scale <= scaleMax):
		return c.usageError("serve: -scale %g is not more than 0 and at most %d", *scale, scaleMax)
	case *maxRequests < 0 || *maxDuration <= 0:
		return c.usageError("serve: -max-requests must not be negative and -max-duration must be positive")
	}
	if err := checkOutputs(nil, []namedPath{{"-url-file", *urlFile}}); err != nil {
		return c.usageError("serve: %v", err)
	}
	var steps []faultserver.Step
	var err error
	switch {
	case *script != "":
		if steps, err = faultserver.Script(*script); err != nil {
			return c.usageError("serve: %v", err)
		}
	case seedSet:
		steps = sim.ServedAnswers(c.opts.Agent.Schedule(*seed, nil), c.opts.Agent)
	case *stepsFile != "":
		if steps, err = readSteps(*stepsFile); err != nil {
			return c.usageError("serve: %v", err)
		}
	}
	server, err := faultserver.New(faultserver.Config{Steps: steps, MaxRequests: *maxRequests, MaxDuration: *maxDuration, Scale: *scale})
	if err != nil {
		return c.usageError("serve: %v", err)
	}
	ctx, stop := interruptible() // Ctrl-C: stop listening, say what was served, exit 0
	defer stop()
	url, stopped, err := faultserver.Listen(ctx, *addr, server)
	if err != nil {
		return c.usageError("serve: %v", err)
	}
	fmt.Fprintf(c.stdout, "serving %d planned answers on %s (OpenAI: %s/v1, Anthropic: %s); at most %d requests, for at most %v\n",
		len(steps), url, url, url, *maxRequests, *maxDuration)
	if *urlFile != "" {
		if err := atomicfile.Write(*urlFile, []byte(url+"\n")); err != nil {
			stop()
			<-stopped
			return c.usageError("serve: -url-file: %s", outputErrorText(err))
		}
	}
	<-stopped
	fmt.Fprintf(c.stdout, "stopped after %d requests\n", server.Served())
	return exitOK
}
