package mutate

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toyMain stands in for a simrun: `run -json -start S -seeds N -corpus DIR` prints a summary whose
// failures depend on the constants the mutants change (property "own" fails from seed
// ownFrom on, "other" from otherFrom on; 0 never), and saves a shrunk schedule when asked.
const toyMain = `package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

const ownFrom = 0
const otherFrom = 0

type violation struct{ Property string ` + "`json:\"property\"`" + ` }
type failure struct {
	Seed       int64       ` + "`json:\"seed\"`" + `
	Violations []violation ` + "`json:\"violations\"`" + `
}

func main() {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	start := fs.Int64("start", 1, "")
	seeds := fs.Int64("seeds", 1, "")
	fs.Bool("json", false, "")
	fs.Int("workers", 1, "")
	corpus := fs.String("corpus", "", "")
	fs.Duration("shrink-time", time.Second, "")
	fs.Parse(os.Args[2:])
	var failures []failure
	for seed := *start; seed < *start+*seeds; seed++ {
		var vs []violation
		if otherFrom > 0 && seed >= otherFrom {
			vs = append(vs, violation{"other"})
		}
		if ownFrom > 0 && seed >= ownFrom {
			vs = append(vs, violation{"own"})
		}
		if len(vs) > 0 {
			failures = append(failures, failure{seed, vs})
		}
	}
	if *corpus != "" && len(failures) > 0 {
		os.WriteFile(filepath.Join(*corpus, "own-seed.json"), []byte(` + "`{\"sizeBefore\": 40, \"sizeAfter\": 3}`" + `), 0o644)
	}
	out, _ := json.Marshal(map[string]any{"failures": failures})
	fmt.Println(string(out))
	if len(failures) > 0 {
		os.Exit(1)
	}
}
`

func toyMutant(constant, value string) string {
	return "Property: own\nDoc: sets " + constant + "\n\n--- a/toy/main.go\n+++ b/toy/main.go\n@@ -10,2 +10,2 @@\n" +
		map[string]string{
			"ownFrom":   "-const ownFrom = 0\n+const ownFrom = " + value + "\n const otherFrom = 0\n",
			"otherFrom": " const ownFrom = 0\n-const otherFrom = 0\n+const otherFrom = " + value + "\n",
		}[constant]
}

// toyModule writes a module holding toyMain and four mutants: one its property catches at seed
// 130, one only another property catches, one nothing catches, one that does not build.
func toyModule(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	write := func(path, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, path)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, path), []byte(text), 0o644))
	}
	write("go.mod", "module example.com/toy\n\ngo 1.22\n")
	write("toy/main.go", toyMain)
	write("mutants/caught.patch", toyMutant("ownFrom", "130"))
	write("mutants/by-other.patch", toyMutant("otherFrom", "7"))
	write("mutants/survives.patch", toyMutant("ownFrom", "5000"))
	write("mutants/broken.patch", toyMutant("ownFrom", "undefinedName"))
	return root
}

// The hunt builds each mutant, runs seeds in growing chunks until its property fails, counts
// seeds to kill from -start, shrinks the killing seed, and tells the four outcomes apart.
func TestRunHuntsEachMutant(t *testing.T) {
	if testing.Short() {
		t.Skip("builds four small binaries")
	}
	root := toyModule(t)
	mutants, err := Load(filepath.Join(root, "mutants"))
	require.NoError(t, err)
	results := Run(mutants, Options{Root: root, Main: "./toy", Start: 1, Seeds: 1000, Workers: 2, ShrinkTime: 1e9})
	byName := map[string]Result{}
	for _, r := range results {
		byName[r.Name] = r
	}
	caught := byName["caught"]
	assert.Equal(t, Killed, caught.Status, caught.Error)
	assert.Equal(t, "own", caught.KilledBy)
	assert.EqualValues(t, 130, caught.SeedsToKill)
	assert.EqualValues(t, 251, caught.SeedsRun, "chunks of 1, 50 and 200: it stops at the chunk that caught it")
	assert.Equal(t, 40, caught.SizeBefore)
	assert.Equal(t, 3, caught.SizeAfter)

	other := byName["by-other"]
	assert.Equal(t, KilledByOther, other.Status)
	assert.Equal(t, "other", other.KilledBy)
	assert.EqualValues(t, 7, other.SeedsToKill)
	assert.EqualValues(t, 1000, other.SeedsRun, "it went on looking for its own property to the bound")

	assert.Equal(t, Survived, byName["survives"].Status)
	assert.EqualValues(t, 1000, byName["survives"].SeedsRun)

	broken := byName["broken"]
	assert.Equal(t, Error, broken.Status)
	assert.Contains(t, broken.Error, "mutant broken does not build")
	assert.Contains(t, broken.Error, "undefinedName")

	report := Summarise(results, 1000)
	assert.Equal(t, 4, report.Total)
	assert.Equal(t, 1, report.Killed)
	assert.Equal(t, 1, report.KilledByOther)
	assert.Equal(t, 1, report.Survived)
	assert.Equal(t, 1, report.Errors)
	assert.InDelta(t, 0.5, report.KillRate, 1e-9)
	assert.InDelta(t, 68.5, report.MedianSeedsToKill, 1e-9, "the median of 7 and 130")
	assert.Equal(t, "caught", report.Slowest)
	assert.False(t, report.OK())
}

// The command prints the table and exits 1 when a mutant escapes its property, 2 when one does
// not build, 0 when every one is caught; -json prints the report.
func TestMainExitCodesAndTable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds small binaries")
	}
	root := toyModule(t)
	t.Chdir(root)
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := Main(args, &stdout, &stderr, Defaults{Command: "toy", Dir: "mutants", Main: "./toy"})
		return code, stdout.String(), stderr.String()
	}
	code, out, errOut := run("-mutants", "caught", "-seeds", "500")
	assert.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "mutant  killed by  seeds to kill  shrunk size  time\ncaught  own        130            40 → 3")
	assert.Contains(t, out, "kill rate 100.0%, median seeds to kill 130, slowest caught (130 seeds)")
	assert.Contains(t, errOut, "[1/1] caught: killed by own at seed 130")

	code, out, _ = run("-mutants", "caught,survives", "-seeds", "300", "-json", "-shrink-time", "0")
	assert.Equal(t, exitMissed, code)
	var report Report
	require.NoError(t, json.Unmarshal([]byte(out), &report))
	assert.Equal(t, 2, report.Total)
	assert.Equal(t, Survived, report.Mutants[1].Status)
	assert.Zero(t, report.Mutants[0].SizeAfter, "-shrink-time 0: not shrunk")

	code, out, _ = run("-mutants", "broken")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, out, "broken: mutate: mutant broken does not build")

	code, _, errOut = run("-mutants", "nope")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "no mutant named nope (there are: broken, by-other, caught, survives)")

	code, out, _ = run("-list")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "caught                           caught by own")

	code, out, _ = run("-overlay", "caught", "-o", filepath.Join(root, "ov"))
	assert.Equal(t, exitOK, code)
	overlay, err := os.ReadFile(filepath.Join(root, "ov", "overlay.json"))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "ov", "overlay.json")+"\n", out)
	assert.Contains(t, string(overlay), filepath.Join(root, "toy", "main.go"))

	// -o takes a new or an empty folder only: the files of the first overlay are kept, and a
	// folder tree is not made.
	code, _, errOut = run("-overlay", "caught", "-o", filepath.Join(root, "ov"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "holds 2 files already")
	again, err := os.ReadFile(filepath.Join(root, "ov", "overlay.json"))
	require.NoError(t, err)
	assert.Equal(t, overlay, again, "nothing is overwritten")
	code, _, errOut = run("-overlay", "caught", "-o", filepath.Join(root, "missing", "ov"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "its parent folder must exist")
	assert.NoDirExists(t, filepath.Join(root, "missing"))

	for _, bad := range [][]string{{"-seeds", "0"}, {"-workers", "0"}, {"-shrink-time", "-1s"}, {"extra"}, {"-markdown"}, {"-o", root}} {
		code, _, _ = run(bad...)
		assert.Equal(t, exitUsage, code, "%v", bad)
	}
}

// A seed range that runs past the largest int64 seed is refused, naming the last start that
// fits: it used to wrap to negative seeds. -workers is bounded too.
func TestMainRefusesARangePastTheLastSeed(t *testing.T) {
	run := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := Main(args, &stdout, &stderr, Defaults{Command: "go run ./cmd/toy", Name: "toy", Dir: "mutants", Main: "./toy"})
		return code, stderr.String()
	}
	code, errOut := run("-start", "9223372036854775807")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "toy: -start 9223372036854775807 with -seeds 10000 runs past the largest seed 9223372036854775807: start at most at 9223372036854765808")
	code, errOut = run("-start", "9223372036854775807", "-seeds", "1", "-list")
	assert.NotContains(t, errOut, "runs past", "one seed from the last fits")
	code, errOut = run("-workers", "1000")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "-workers must be 1 to 64, got 1000")
}

// A mutant that breaks every seed (as a livelock does, each seed ending at its budget) is killed
// at its first seed after running that seed alone: the first chunk is one seed.
func TestAMutantBreakingEverySeedIsKilledAtItsFirst(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a small binary")
	}
	root := toyModule(t)
	require.NoError(t, os.WriteFile(filepath.Join(root, "mutants", "everywhere.patch"), []byte(toyMutant("ownFrom", "1")), 0o644))
	all, err := Load(filepath.Join(root, "mutants"))
	require.NoError(t, err)
	mutants, err := Select(all, []string{"everywhere"})
	require.NoError(t, err)
	results := Run(mutants, Options{Root: root, Main: "./toy", Start: 1, Seeds: 1000, Workers: 1})
	require.Len(t, results, 1)
	assert.Equal(t, Killed, results[0].Status, results[0].Error)
	assert.EqualValues(t, 1, results[0].SeedsToKill)
	assert.EqualValues(t, 1, results[0].SeedsRun, "one seed run, not a chunk of fifty")
}
