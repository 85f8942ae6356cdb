package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/eventjson"
	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/sim/cli"
)

func runScenarios(args []string, stdout, stderr io.Writer) int {
	fs := cli.FlagSet("simrun", "scenarios", "scenarios", stderr)
	if code, ok := cli.ParseNoArguments("simrun", fs, args, stderr); !ok {
		return code
	}
	for _, sc := range sim.Scenarios() {
		fmt.Fprintf(stdout, "%-22s %s\n", sc.Name, sc.Doc)
	}
	return cli.ExitOK
}

func runScenario(args []string, stdout, stderr io.Writer) int {
	fs := cli.FlagSet("simrun", "scenario", "scenario [-seed S] [-timeline] NAME", stderr)
	seed := fs.Int64("seed", 1, "seed for the jitter draws and the scheduler's choices")
	timeline := fs.Bool("timeline", false, "print a readable timeline instead of the JSON Lines log")
	positional, err := cli.ParseFlags(fs, args)
	if err != nil {
		return cli.FlagExit(err)
	}
	if len(positional) != 1 {
		return cli.UsageError(stderr, "simrun", "scenario needs exactly one scenario name; 'simrun scenarios' lists them")
	}
	name := positional[0]
	if _, ok := sim.ScenarioByName(name); !ok {
		return cli.UsageError(stderr, "simrun", "unknown scenario %q; known: %s", name, strings.Join(sim.ScenarioNames(), ", "))
	}
	result, err := sim.SimulateScenario(name, *seed)
	if err != nil {
		fmt.Fprintf(stderr, "simrun: %v\n", err)
		return cli.ExitViolation
	}
	if *timeline {
		fmt.Fprint(stdout, sim.Timeline(result.Events, 0))
	} else if err := eventjson.Write(stdout, result.Events); err != nil {
		fmt.Fprintf(stderr, "simrun: %v\n", err)
		return cli.ExitUsage
	}
	for _, e := range result.AgentErrors {
		fmt.Fprintf(stderr, "agent/error turn %d (%s): %s\n", e.Turn, e.Source, harness.ErrorChain(e.Err))
	}
	names := make([]string, 0, len(result.ActionErrors))
	for name := range result.ActionErrors {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(stderr, "user action %q failed: %v\n", name, result.ActionErrors[name])
	}
	return cli.ExitOK
}
