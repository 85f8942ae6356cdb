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
)

// readmeCommand is one `go run ./cmd/simrun …` line of the README's shell blocks: its arguments,
// and the exit code its comment promises ("# exits 1"; 0 otherwise).
type readmeCommand struct {
	line   string
	args   []string
	code   int
	stdout string // the file "> FILE" sends stdout to ("": none)
}

var exitsComment = regexp.MustCompile(`#.*\bexits (\d)`)

// readmeCommands extracts the simrun commands of the README's ```sh blocks, continuation lines
// joined, "a | b | c" split into three commands and "> FILE" redirections noted.
func readmeCommands(t *testing.T) []readmeCommand {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	var commands []readmeCommand
	inShell, pending := false, ""
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "```sh"):
			inShell = true
			continue
		case strings.HasPrefix(line, "```"):
			inShell = false
			continue
		case !inShell:
			continue
		}
		if pending != "" {
			line, pending = pending+" "+strings.TrimSpace(line), ""
		}
		if strings.HasSuffix(line, `\`) {
			pending = strings.TrimSuffix(line, `\`)
			continue
		}
		code := 0
		if m := exitsComment.FindStringSubmatch(line); m != nil {
			code, _ = strconv.Atoi(m[1])
		}
		command, _, _ := strings.Cut(line, "#")
		command, redirect, _ := strings.Cut(command, ">")
		rest, ok := strings.CutPrefix(strings.TrimSpace(command), "go run ./cmd/simrun")
		if !ok {
			continue
		}
		for _, part := range strings.Split(rest, " | ") {
			commands = append(commands, readmeCommand{line: strings.TrimSpace(line), args: strings.Fields(part), code: code, stdout: strings.TrimSpace(redirect)})
		}
	}
	require.NotEmpty(t, commands)
	return commands
}

// cutForTest keeps a README command as written but for its size: seed counts, checks, agents and
// times are cut, so the whole README runs in seconds. What is tested is that every command is
// accepted and runs to the exit code the README promises.
func cutForTest(args []string) []string {
	limits := map[string]int{"-seeds": 300, "-checks": 10, "-agents": 20}
	if len(args) > 0 && args[0] == "mutate" && !contains(args, "-mutants") && !contains(args, "-list") && !contains(args, "-overlay") {
		args = append(append([]string(nil), args...), "-mutants", "drain-skipped", "-shrink-time", "0") // one mutant stands for all
	}
	out := append([]string(nil), args...)
	for i := 0; i+1 < len(out); i++ {
		if limit, ok := limits[out[i]]; ok {
			if n, err := strconv.Atoi(out[i+1]); err == nil && n > limit {
				out[i+1] = strconv.Itoa(limit)
			}
		}
		if out[i] == "-time" {
			out[i+1] = "2s"
		}
	}
	if len(out) == 0 || out[0] == "run" || strings.HasPrefix(out[0], "-") {
		if !contains(out, "-seed") && !contains(out, "-seeds") {
			out = append(out, "-seeds", "300") // the default 10,000, cut
		}
		out = append(out, "-corpus", "") // a planted run's failures are not kept in the test's folder
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

// readmeFolder is a working folder holding the files the README's commands read.
func readmeFolder(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	copyInto := func(from, to string) {
		data, err := os.ReadFile(from)
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, to)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, to), data, 0o644))
	}
	copyInto("../../sim/cli/testdata/check/good/minimal.jsonl", "session.jsonl")
	copyInto("../../sim/cli/testdata/check/good/retries.jsonl", "other.jsonl")
	copyInto("../../sim/cli/testdata/check/good/minimal.jsonl", "~/.myagent/session.jsonl") // the test runs no shell: ~ is a folder here
	copyInto("../../sim/cli/testdata/check/good/retries.jsonl", "corpus-run.jsonl")
	copyInto("../../examples/brooker.json", "examples/brooker.json")
	copyInto("../../corpus/drain-real-results-seed609.json", "corpus/drain-real-results-seed609.json")
	t.Chdir(dir)
}

// runReadmeCommands runs, in order and in one folder (a command may read what an earlier one
// wrote), the README's commands. A command that builds a mutant (mutate, -plant) runs in the
// repository instead, where turnsim's source is.
func runReadmeCommands(t *testing.T) {
	commands := readmeCommands(t)
	repository, err := filepath.Abs("../..")
	require.NoError(t, err)
	readmeFolder(t)
	folder, err := os.Getwd()
	require.NoError(t, err)
	ran := 0
	for _, c := range commands {
		if len(c.args) > 0 && c.args[0] == "serve" {
			continue // a server runs until stopped; serve_test.go and the CI step play these
		}
		args := c.args
		if c.code == exitOK { // a promised failure is run at the size that promises it
			args = cutForTest(c.args)
		}
		for i, a := range args {
			if strings.Contains(a, "*") {
				matches, err := filepath.Glob(a)
				require.NoError(t, err)
				args = append(append(args[:i:i], matches...), args[i+1:]...)
			}
		}
		buildsMutant := len(args) > 0 && (args[0] == "mutate" || args[0] == "plants") || contains(args, "-plant")
		if buildsMutant {
			require.NoError(t, os.Chdir(repository))
			if contains(args, "-plant") && !contains(args, "-corpus") {
				args = append(args, "-corpus", "") // in the repository: its corpus/ takes no mutant's failures
			}
		}
		code, out, errOut := simrun(args...)
		require.NoError(t, os.Chdir(folder))
		assert.Equal(t, c.code, code, "README: %s\nran: simrun %s\n%s", c.line, strings.Join(args, " "), errOut)
		if c.stdout != "" {
			require.NoError(t, os.WriteFile(c.stdout, []byte(out), 0o644))
		}
		ran++
	}
	assert.Greater(t, ran, 2, "the README's commands were found")
}

// Every `go run ./cmd/simrun …` command of the README runs and exits as the README says.
func TestReadmeCommandsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every README command")
	}
	runReadmeCommands(t)
}
