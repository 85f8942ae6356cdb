package main

import (
	"fmt"
	"io"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/properties"
)

func runFaults(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("faults", "faults [-markdown]", stderr)
	markdown := fs.Bool("markdown", false, "print a Markdown table (as in the README)")
	if code, ok := parseNoArguments(fs, args, stderr); !ok {
		return code
	}
	if *markdown {
		fmt.Fprintln(stdout, "| fault | group | what it does |\n| --- | --- | --- |")
	}
	for _, f := range faults.Catalogue() {
		if *markdown {
			fmt.Fprintf(stdout, "| `%s` | %s | %s |\n", f.Name, f.Group, f.Doc)
		} else {
			fmt.Fprintf(stdout, "%-30s %-9s %s\n", f.Name, f.Group, f.Doc)
		}
	}
	return exitOK
}

func runProperties(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("properties", "properties [-markdown]", stderr)
	markdown := fs.Bool("markdown", false, "print a Markdown table (as in the README)")
	if code, ok := parseNoArguments(fs, args, stderr); !ok {
		return code
	}
	if *markdown {
		fmt.Fprintln(stdout, "| property | what it protects | log only |\n| --- | --- | --- |")
	}
	for _, p := range properties.Catalogue() {
		logOnly := ""
		if properties.LogOnly(p.Name) {
			logOnly = "yes"
		}
		if *markdown {
			fmt.Fprintf(stdout, "| `%s` | %s | %s |\n", p.Name, p.Doc, logOnly)
		} else {
			fmt.Fprintf(stdout, "%-26s %s\n", p.Name, p.Doc)
		}
	}
	return exitOK
}
