package codestyle

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// repoRoot is the repository's root, from this package's folder.
const repoRoot = "../.."

// goFiles lists the non-test Go files below the repository's folders dirs (nested modules
// included), skipping testdata.
func goFiles(t *testing.T, dirs ...string) []string {
	t.Helper()
	var files []string
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(repoRoot, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
				files = append(files, path)
			}
			return nil
		})
		require.NoError(t, err)
	}
	require.NotEmpty(t, files)
	return files
}

// The harness is plain Go: no unsafe anywhere in harness/, its codec included (issue 25).
func TestHarnessImportsNoUnsafe(t *testing.T) {
	fset := token.NewFileSet()
	for _, path := range goFiles(t, "harness") {
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, spec := range f.Imports {
			name, _ := strconv.Unquote(spec.Path.Value)
			assert.NotEqual(t, "unsafe", name, "%s imports unsafe", path)
		}
	}
}

// measurement matches a comment that states a measured cost: instructions, time per operation,
// a share of a schedule's or the CPU's time, allocations or bytes per unit of work.
var measurement = regexp.MustCompile(`(?i)\binstructions?\b|\d\s*(µs|ns)\b|ns/op|allocs/op|` +
	`\d[\d.,]*\s*%\s+of\s+(a|the|its)\s+(\w+\s+)?(schedule|run|cpu|time|runtime|allocations|instructions)|` +
	`\b(a\s+(fifth|tenth|quarter|third|half))\s+of\s+(a|the)\s+(schedule|scheduler|cpu|run)|` +
	`\ballocations?\s+(a|per|each)\s+(schedule|run|call|send|step|seed|event|tool)|` +
	`\d[\d.,]*\s*(KB|MB|bytes)\s+(a|per)\s+(schedule|run|call|send|seed|event)`)

// The measurement pattern catches the figures that were once in comments and leaves alone what
// states a rule or a rate (so the test below can fail, and fails only on measurements).
func TestMeasurementPattern(t *testing.T) {
	for _, text := range []string{
		"Marshal was about 5,000 instructions a call",
		"two coroutine switches, about 100 ns, with no run queue",
		"the formatting was 5% of a simulated schedule's runtime phase",
		"runtime.futex and runtime.wakep were a fifth of a schedule's CPU",
		"a *rand.Rand was two allocations a run and an interface call a draw",
		"without the copy Events makes (about 1.5 KB a schedule)",
		"decoding them with encoding/json was about 1.5 % of the schedule",
	} {
		assert.Regexp(t, measurement, text)
	}
	for _, text := range []string{
		"500 ms doubling to a 10 s cap, ±10 % jitter, 2 retries",
		"The chart's geometry in SVG user units (pixels at 100%)",
		"The default mix plans one for well over 1% of seeds.",
		"a 4 MiB file of 1.4 million {} actions cost 887 MB before Validate could refuse it",
		"never less than a tenth of a second",
	} {
		assert.NotRegexp(t, measurement, text)
	}
}

// No comment of the code carries a measurement: current figures go in docs/performance.md's
// generated table, history in the commit messages, so no comment goes stale as the code speeds
// up or slows down.
func TestCommentsCarryNoMeasurements(t *testing.T) {
	fset := token.NewFileSet()
	for _, path := range goFiles(t, "harness", "properties", "faults", "sim", "internal", "cmd") {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		f, err := parser.ParseFile(fset, path, data, parser.ParseComments)
		require.NoError(t, err)
		for _, group := range f.Comments {
			for _, c := range group.List {
				if m := measurement.FindString(c.Text); m != "" {
					t.Errorf("%s: a comment states a measurement (%q): %s", fset.Position(c.Pos()), m, c.Text)
				}
			}
		}
	}
}

// module is the core module's path: the prefix of every import the layering rule reads.
const module = "github.com/turnsim/turnsim/"

// mustNotImport lists, for each layer (a folder of the repository), the layers above it: the
// import picture is cmd → sim → faults, properties → harness, with internal/ the leaves every
// layer may use, so no arrow runs back up.
var mustNotImport = map[string][]string{
	"harness/":    {"sim/", "faults/", "properties/", "cmd/"},
	"faults/":     {"sim/", "cmd/"},
	"properties/": {"sim/", "cmd/"},
	"internal/":   {"sim/", "cmd/"},
	"sim/":        {"cmd/"},
}

// Every import of the code points down the layers (tests may reach anywhere: they are not part
// of the picture).
func TestImportsPointDown(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	for _, path := range goFiles(t, "harness", "faults", "properties", "internal", "sim") {
		rel, err := filepath.Rel(repoRoot, path)
		require.NoError(t, err)
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for layer, above := range mustNotImport {
			if !strings.HasPrefix(rel, layer) {
				continue
			}
			for _, spec := range f.Imports {
				name, _ := strconv.Unquote(spec.Path.Value)
				for _, up := range above {
					inside := name == module+strings.TrimSuffix(up, "/") || strings.HasPrefix(name, module+up)
					assert.False(t, inside, "%s (%s) imports %s, a layer above it", rel, layer, name)
				}
				checked++
			}
		}
	}
	assert.Greater(t, checked, 100, "imports read")
}

// concurrencyExempt are the harness files allowed to start goroutines, select, read the wall
// clock or draw from the global random: the production runtime, where the harness meets the
// operating world, and the adapters' test server (a package only their tests import).
var concurrencyExempt = map[string]bool{
	"harness/runtime_production.go":               true,
	"harness/provider/internal/wiretest/serve.go": true,
}

// wallClock are the time functions that read or wait on the wall clock.
var wallClock = map[string]bool{"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true, "AfterFunc": true, "NewTimer": true, "NewTicker": true, "Tick": true}

// privateRandom are the names of math/rand that make or name a source of one's own (the
// production default seeds one from the operating system), rather than draw from the global one.
var privateRandom = map[string]bool{"New": true, "NewSource": true, "Rand": true, "Source": true}

// The harness waits, starts work and reads time only through its injected Runtime and Clock, and
// draws only from its injected random, so that the same code runs on the simulator's scheduler:
// no go statement, no select, no wall clock, no global random outside the exempt files.
func TestHarnessLeavesConcurrencyToTheRuntime(t *testing.T) {
	fset := token.NewFileSet()
	for _, path := range goFiles(t, "harness") {
		rel, err := filepath.Rel(repoRoot, path)
		require.NoError(t, err)
		rel = filepath.ToSlash(rel)
		if concurrencyExempt[rel] {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		require.NoError(t, err)
		for _, spec := range f.Imports {
			name, _ := strconv.Unquote(spec.Path.Value)
			assert.NotEqual(t, module+"harness/provider/internal/wiretest", name, "%s: only tests may import the adapters' test server", rel)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s: a go statement: start work through Runtime.Go", fset.Position(n.Pos()))
			case *ast.SelectStmt:
				t.Errorf("%s: a select: wait through the Runtime", fset.Position(n.Pos()))
			case *ast.SelectorExpr:
				pkg, ok := n.X.(*ast.Ident)
				switch {
				case !ok:
				case pkg.Name == "time" && wallClock[n.Sel.Name]:
					t.Errorf("%s: time.%s reads the wall clock: use the injected Clock", fset.Position(n.Pos()), n.Sel.Name)
				case pkg.Name == "rand" && !privateRandom[n.Sel.Name]:
					t.Errorf("%s: rand.%s draws from the global random: use the injected Random", fset.Position(n.Pos()), n.Sel.Name)
				}
			}
			return true
		})
	}
}
