package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/internal/doccmd"
)

// The commands of README.md and docs/*.md, run by TestDocCommandsRun. docs/replay.md is a
// walk-through with a server in the background, a production agent and mutant builds: its
// commands are run in order by sim/wire/replaydiff's TestReplayWalkThroughRuns instead.
//
// How each kind of command is run (the rewrite rules):
//
//   - `go run ./cmd/simrun ARGS` (and `/tmp/simrun ARGS`, a built simrun) runs in this process
//     on simrun's options, in a temporary folder holding the files the docs' commands read, and
//     must exit as its comment promises. A command promised to exit 0 is cut to size: -seeds at
//     most 300 (and 300 when the default 10,000 would run), -checks 10, -agents 20, one mutant
//     for a whole `mutate`; in every command a shrink's -time is 2s and -shrink-time 1s. A
//     command that builds a mutant (mutate, plants, -plant) runs in the repository, where the
//     source is, its files still in the temporary folder. `serve` runs with -max-duration 300ms
//     (it stops by itself).
//   - `go test` and `go build` lines are checked, not run (running them is CI's job: .ci/run runs
//     `go test ./...` and every fuzz target): each package they name must exist, and each -fuzz
//     or -bench pattern must match a function of that package's tests.
//   - Anything else must say why it is not run (`# not run: why`).

// docPagesRunHere are the pages whose commands this test runs; every other page must be named in
// docPagesRunElsewhere.
var docPagesRunElsewhere = map[string]string{"replay.md": "sim/wire/replaydiff's TestReplayWalkThroughRuns"}

// docCommands are the commands of the pages this test runs, in page order.
func docCommands(t *testing.T) []doccmd.Command {
	t.Helper()
	pages, err := doccmd.Pages("../..")
	require.NoError(t, err)
	var commands []doccmd.Command
	for _, page := range pages {
		if _, elsewhere := docPagesRunElsewhere[filepath.Base(page)]; elsewhere && filepath.Base(filepath.Dir(page)) == "docs" {
			continue
		}
		cs, err := doccmd.Read(page)
		require.NoError(t, err)
		commands = append(commands, cs...)
	}
	require.NotEmpty(t, commands)
	return commands
}

// simrunArgs are the arguments of a simrun command of the docs, and whether it is one.
func simrunArgs(words []string) ([]string, bool) {
	switch {
	case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/simrun":
		return words[3:], true
	case len(words) >= 1 && words[0] == "/tmp/simrun":
		return words[1:], true
	}
	return nil, false
}

// cutForTest keeps a docs command as written but for its size, so that every page runs in
// seconds; a command promised to fail keeps its seed counts, which are what make it fail.
func cutForTest(args []string, code int) []string {
	out := append([]string(nil), args...)
	command := "run"
	if len(out) > 0 && !strings.HasPrefix(out[0], "-") {
		command = out[0]
	}
	if code == exitOK {
		limits := map[string]int{"-seeds": 300, "-checks": 10, "-agents": 20}
		for i := 0; i+1 < len(out); i++ {
			if limit, ok := limits[out[i]]; ok {
				if n, err := strconv.Atoi(out[i+1]); err == nil && n > limit {
					out[i+1] = strconv.Itoa(limit)
				}
			}
		}
		if command == "mutate" && !contains(out, "-mutants") && !contains(out, "-list") && !contains(out, "-overlay") {
			out = append(out, "-mutants", "drain-skipped", "-shrink-time", "0") // one mutant stands for all
		}
		if command == "run" && !contains(out, "-seed") && !contains(out, "-seeds") {
			out = append(out, "-seeds", "300") // the default 10,000, cut
		}
	}
	for i := 0; i+1 < len(out); i++ {
		switch {
		case out[i] == "-time":
			out[i+1] = "2s"
		case out[i] == "-shrink-time" && out[i+1] != "0":
			out[i+1] = "1s"
		}
	}
	switch command {
	case "run":
		if !contains(out, "-shrink-time") {
			out = append(out, "-shrink-time", "1s")
		}
		if !contains(out, "-corpus") {
			out = append(out, "-corpus", "") // failures are not saved where the test runs
		}
	case "serve":
		out = append(out, "-max-duration", "300ms")
	}
	return out
}

func contains(args []string, flag string) bool {
	for _, a := range args {
		if a == flag {
			return true
		}
	}
	return false
}

// fileFlags are the flags whose value is a path: a mutant's command runs in the repository, and
// these are made absolute in the docs' folder so that nothing is read or written in the tree.
var fileFlags = map[string]bool{"-o": true, "-schedule": true, "-log": true, "-html": true, "-svg": true, "-corpus": true, "-params": true, "-steps": true, "-url-file": true}

// inFolder makes args' paths absolute in folder: the values of fileFlags, and every argument that
// names a file there.
func inFolder(args []string, folder string) []string {
	out := append([]string(nil), args...)
	for i, a := range out {
		if a == "" || strings.HasPrefix(a, "-") || filepath.IsAbs(a) {
			continue
		}
		_, err := os.Stat(filepath.Join(folder, a))
		if (i > 0 && fileFlags[out[i-1]]) || err == nil {
			out[i] = filepath.Join(folder, a)
		}
	}
	return out
}

// docsFolder is a working folder holding the files the docs' commands read.
func docsFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	copyInto := func(from, to string) {
		data, err := os.ReadFile(filepath.Join("../..", from))
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, to)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, to), data, 0o644))
	}
	copyInto("sim/cli/testdata/check/good/minimal.jsonl", "session.jsonl")
	copyInto("sim/cli/testdata/check/good/retries.jsonl", "other.jsonl")
	copyInto("sim/cli/testdata/check/good/minimal.jsonl", "~/.myagent/session.jsonl") // no shell: ~ is a folder here
	copyInto("sim/cli/testdata/check/good/retries.jsonl", "corpus-run.jsonl")
	copyInto("examples/brooker.json", "examples/brooker.json")
	copyInto("corpus/drain-real-results-seed609.json", "corpus/drain-real-results-seed609.json")
	copyInto("docs/replay-steps.json", "docs/replay-steps.json")
	copyInto("docs/replay-steps.json", "steps.json")
	return dir
}

var testFuncRE = regexp.MustCompile(`(?m)^func ((?:Fuzz|Benchmark|Test)\w*)\(`)

// checkGoCommand checks a `go test` or `go build` line of the docs without running it: its
// packages exist, and its -fuzz and -bench patterns match functions of their tests.
func checkGoCommand(t *testing.T, root string, c doccmd.Command, words []string) {
	t.Helper()
	var packages, patterns []string
	for i := 2; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "-fuzz" || w == "-bench":
			if i+1 < len(words) {
				prefix := map[string]string{"-fuzz": "Fuzz", "-bench": "Benchmark"}[w]
				patterns = append(patterns, prefix+"\x00"+words[i+1])
			}
			i++
		case w == "-o" || w == "-run" || strings.HasPrefix(w, "-") && i+1 < len(words) && !strings.HasPrefix(words[i+1], "-") && !strings.HasPrefix(words[i+1], "./"):
			i++ // a flag and its value
		case strings.HasPrefix(w, "./"):
			packages = append(packages, w)
		}
	}
	require.NotEmpty(t, packages, "%s: names no package", c)
	for _, p := range packages {
		if dir, all := strings.CutSuffix(p, "/..."); all {
			info, err := os.Stat(filepath.Join(root, dir))
			assert.True(t, err == nil && info.IsDir(), "%s: no folder %s", c, dir)
			continue
		}
		info, err := os.Stat(filepath.Join(root, p))
		if !assert.NoError(t, err, "%s: package %s", c, p) || !assert.True(t, info.IsDir(), "%s: %s is not a package", c, p) {
			continue
		}
		tests, err := filepath.Glob(filepath.Join(root, p, "*_test.go"))
		require.NoError(t, err)
		var funcs []string
		for _, f := range tests {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			for _, m := range testFuncRE.FindAllStringSubmatch(string(data), -1) {
				funcs = append(funcs, m[1])
			}
		}
		for _, pp := range patterns {
			prefix, pattern, _ := strings.Cut(pp, "\x00")
			re, err := regexp.Compile(pattern)
			require.NoError(t, err, "%s", c)
			found := false
			for _, f := range funcs {
				found = found || strings.HasPrefix(f, prefix) && re.MatchString(f)
			}
			assert.True(t, found, "%s: no %s function of %s matches %q", c, prefix, p, pattern)
		}
	}
}

// runDocCommands runs, in order and in one folder (a command may read what an earlier one
// wrote), the docs' commands, and checks or excuses the rest.
func runDocCommands(t *testing.T) {
	commands := docCommands(t)
	repository, err := filepath.Abs("../..")
	require.NoError(t, err)
	folder := docsFolder(t)
	t.Chdir(folder)
	ran := 0
	for _, c := range commands {
		words, stdout := doccmd.Words(c.Text)
		args, isSimrun := simrunArgs(words)
		switch {
		case c.NotRun != "":
			continue
		case len(words) >= 2 && words[0] == "go" && (words[1] == "test" || words[1] == "build"):
			checkGoCommand(t, repository, c, words)
			continue
		case !isSimrun:
			t.Errorf("%s: neither a simrun nor a go command, nor marked `# not run: why`", c)
			continue
		}
		args = cutForTest(args, c.Code)
		for i, a := range args {
			if strings.Contains(a, "*") {
				matches, err := filepath.Glob(a)
				require.NoError(t, err)
				args = append(append(args[:i:i], matches...), args[i+1:]...)
			}
		}
		buildsMutant := len(args) > 0 && (args[0] == "mutate" || args[0] == "plants") || contains(args, "-plant")
		if buildsMutant {
			args = inFolder(args, folder)
			require.NoError(t, os.Chdir(repository))
		}
		code, out, errOut := simrun(args...)
		require.NoError(t, os.Chdir(folder))
		assert.Equal(t, c.Code, code, "%s\nran: simrun %s\n%s", c, strings.Join(args, " "), errOut)
		if stdout != "" {
			require.NoError(t, os.WriteFile(stdout, []byte(out), 0o644))
		}
		ran++
	}
	assert.Greater(t, ran, 20, "the docs' commands were found")
}

// Every shell command of README.md and docs/*.md runs and exits as the page says, or is checked
// or excused as the rules above say.
func TestDocCommandsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command of the docs, mutant builds included")
	}
	runDocCommands(t)
}

// Every page of docs/ is run here or by the test docPagesRunElsewhere names, and a page run
// elsewhere still exists.
func TestEveryDocPageHasItsCommandsRun(t *testing.T) {
	pages, err := doccmd.Pages("../..")
	require.NoError(t, err)
	names := map[string]bool{}
	for _, p := range pages {
		names[filepath.Base(p)] = true
	}
	for page, runner := range docPagesRunElsewhere {
		assert.True(t, names[page], "docs/%s (run by %s) is gone: take it out of docPagesRunElsewhere", page, runner)
	}
}
