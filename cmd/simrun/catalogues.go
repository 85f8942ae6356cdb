package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/properties"
)

func runFaults(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("faults", "faults", stderr)
	positional, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(positional) > 0 {
		return usageError(stderr, "faults takes no arguments, got %q", strings.Join(positional, " "))
	}
	for _, f := range faults.Catalogue() {
		fmt.Fprintf(stdout, "%-30s %-9s %s\n", f.Name, f.Group, f.Doc)
	}
	return exitOK
}

func runProperties(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("properties", "properties", stderr)
	positional, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(positional) > 0 {
		return usageError(stderr, "properties takes no arguments, got %q", strings.Join(positional, " "))
	}
	for _, p := range properties.Catalogue() {
		fmt.Fprintf(stdout, "%-26s %s\n", p.Name, p.Doc)
	}
	return exitOK
}
