package mutate

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Defaults are what the command assumes when its flags do not say: the mutants' folder and the
// main package to build, both relative to the module root.
type Defaults struct {
	// Command is how the user runs the command, for usage lines ("simrun", "go run ./cmd/mysim").
	Command string
	// Name is the program's name in its messages ("simrun: -seeds must be …"); "" is Command.
	Name string
	Dir  string
	Main string
	// Work is the folder under which each mutant's build folder is made ("": the system's
	// temporary folder); a caller that removes it when interrupted leaves nothing behind.
	Work string
}

// Exit codes, as simrun's: every mutant caught by its property, one not, bad usage or a mutant
// that does not apply or build.
const (
	exitOK     = 0
	exitMissed = 1
	exitUsage  = 2
)

// workersMax bounds -workers: each worker builds a mutant (a go build of its own) and runs it.
const workersMax = 64

// seedsDefault bounds the seeds per mutant: the bound turnsim holds its own mutants to (the
// slowest, a mutant of an adapter that only a stalled wire shows, needs 3,865), so that a plain
// `mutate` passes on turnsim's; a survivor costs seconds, not minutes, at a schedule's cost.
const seedsDefault = 10000

// Main is the `mutate` command: it parses args, hunts the mutants and prints the table (or the
// report as JSON), and returns the exit code.
func Main(args []string, stdout, stderr io.Writer, d Defaults) int {
	name := d.Name
	if name == "" {
		name = d.Command
	}
	fs := flag.NewFlagSet("mutate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s mutate [-mutants a,b] [-seeds N] [-workers K] [-dir DIR] [-main PKG] [-shrink-time D] [-json] [-list [-markdown]] [-overlay NAME [-o DIR]]\n\n", name)
		fmt.Fprintln(stderr, "Builds each mutant (a NAME.patch in -dir, planted with go build -overlay), runs seeds until its property")
		fmt.Fprintln(stderr, "fails or -seeds is reached, and prints mutant, killed by, seeds to kill, shrunk size and time.")
		fmt.Fprintln(stderr, "Exit codes: 0 every mutant caught by its property, 1 one was not, 2 bad usage or a mutant that does not apply or build.")
		fmt.Fprintln(stderr, "\nflags:")
		fs.PrintDefaults()
	}
	names := fs.String("mutants", "", "run only these mutants (comma-separated; -list shows them)")
	seeds := fs.Int("seeds", seedsDefault, "how many seeds to run per mutant before it is said to survive")
	start := fs.Int64("start", 1, "the first seed")
	workers := fs.Int("workers", 2, "how many mutants build and run at once (each runs its seeds on one worker)")
	dir := fs.String("dir", d.Dir, "the folder of mutant files, relative to the module root unless absolute")
	mainPackage := fs.String("main", d.Main, "the main package to build with each mutant (its run command hunts it)")
	shrinkTime := fs.Duration("shrink-time", 5*time.Second, "how long to minimise each killing schedule (0: do not)")
	asJSON := fs.Bool("json", false, "print the report as one JSON object on stdout")
	list := fs.Bool("list", false, "list the mutants (name, property, what each breaks) and build none")
	markdown := fs.Bool("markdown", false, "with -list: print a Markdown table")
	overlayOf := fs.String("overlay", "", "write this mutant's overlay file (and its mutated files) and print its path, for go test -overlay")
	out := fs.String("o", "", "with -overlay: a new or empty folder to write into, its parent existing (default: a new temporary folder)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "%s: %s\n", name, fmt.Sprintf(format, a...))
		return exitUsage
	}
	switch {
	case fs.NArg() > 0:
		return usage("mutate takes no arguments, got %q", strings.Join(fs.Args(), " "))
	case *seeds < 1:
		return usage("-seeds must be at least 1, got %d", *seeds)
	case *start > math.MaxInt64-int64(*seeds-1):
		return usage("-start %d with -seeds %d runs past the largest seed %d: start at most at %d", *start, *seeds, int64(math.MaxInt64), math.MaxInt64-int64(*seeds-1))
	case *workers < 1 || *workers > workersMax:
		return usage("-workers must be 1 to %d, got %d (each builds and runs a mutant at once)", workersMax, *workers)
	case *shrinkTime < 0:
		return usage("-shrink-time %v is negative (0 keeps schedules as they are)", *shrinkTime)
	case *mainPackage == "":
		return usage("-main is needed: the main package to build with each mutant (e.g. ./cmd/mysim)")
	case *markdown && !*list:
		return usage("-markdown goes with -list (it prints the list as a Markdown table)")
	case *out != "" && *overlayOf == "":
		return usage("-o goes with -overlay (the folder the overlay is written into)")
	}
	root, err := MutantsRoot(".", *dir)
	if err != nil {
		return usage("%v", err)
	}
	folder := *dir
	if !filepath.IsAbs(folder) {
		folder = filepath.Join(root, folder)
	}
	all, err := Load(folder)
	if err != nil {
		return usage("%v", err)
	}
	if *overlayOf != "" {
		return writeOverlay(all, *overlayOf, root, *out, stdout, usage)
	}
	var selected []string
	if *names != "" {
		selected = strings.Split(*names, ",")
	}
	mutants, err := Select(all, selected)
	if err != nil {
		return usage("-mutants: %v", err)
	}
	if *list {
		List(stdout, mutants, *markdown)
		return exitOK
	}
	for _, m := range mutants { // a mutant that no longer applies is named before any build
		if _, err := m.Apply(root); err != nil {
			return usage("%v", err)
		}
	}
	var mu sync.Mutex
	finished := 0
	results := Run(mutants, Options{Root: root, Main: *mainPackage, Start: *start, Seeds: *seeds, Workers: *workers, ShrinkTime: *shrinkTime, Work: d.Work,
		Done: func(r Result) {
			mu.Lock()
			defer mu.Unlock()
			finished++
			fmt.Fprintf(stderr, "[%d/%d] %s: %s (%.1fs)\n", finished, len(mutants), r.Name, progressLine(r), r.Seconds)
		}})
	report := Summarise(results, *seeds)
	if *asJSON {
		data, err := json.MarshalIndent(report, "", "  ")
		if err != nil {
			panic(err)
		}
		fmt.Fprintln(stdout, string(data))
	} else {
		report.WriteTable(stdout)
	}
	switch {
	case report.Errors > 0:
		return exitUsage
	case !report.OK():
		return exitMissed
	}
	return exitOK
}

// List prints each mutant's name, the property that must catch it and what it breaks.
func List(w io.Writer, mutants []Mutant, markdown bool) {
	if markdown {
		fmt.Fprintln(w, "| mutant | caught by | defect |\n| --- | --- | --- |")
	}
	for _, m := range mutants {
		if markdown {
			fmt.Fprintf(w, "| `%s` | `%s` | %s |\n", m.Name, m.Property, m.Doc)
		} else {
			fmt.Fprintf(w, "%-32s caught by %-28s %s\n", m.Name, m.Property, m.Doc)
		}
	}
}

// writeOverlay is -overlay NAME: the mutant's overlay, written for the user's own `go test`.
func writeOverlay(all []Mutant, name, root, dir string, stdout io.Writer, usage func(string, ...any) int) int {
	picked, err := Select(all, []string{name})
	if err != nil {
		return usage("-overlay: %v", err)
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "turnsim-overlay-"+name+"-"); err != nil {
			return usage("-overlay: %v", err)
		}
	} else if err := newFolder(dir); err != nil {
		return usage("-o %s: %v", dir, err)
	}
	path, err := WriteOverlay(picked[0], root, dir)
	if err != nil {
		return usage("%v", err)
	}
	fmt.Fprintln(stdout, path)
	return exitOK
}

func progressLine(r Result) string {
	switch r.Status {
	case Killed, KilledByOther:
		return fmt.Sprintf("%s by %s at seed %d", r.Status, r.KilledBy, r.KillSeed)
	case Survived:
		return fmt.Sprintf("survived %d seeds", r.SeedsRun)
	}
	return "error: " + firstLineOf(r.Error)
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// newFolder makes dir, or takes it when it exists and is empty: what an overlay writes must not
// replace files of the user's, nor appear in a folder tree the user did not ask for.
func newFolder(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.Mkdir(dir, 0o755); err != nil {
			return fmt.Errorf("cannot make it (its parent folder must exist): %w", err)
		}
		return nil
	case err != nil:
		return err
	case len(entries) > 0:
		return fmt.Errorf("the folder holds %d files already: give a new or an empty folder", len(entries))
	}
	return nil
}
