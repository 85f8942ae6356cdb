package replaydiff

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/internal/doccmd"
)

// repoRoot is the module's root, from this package's folder.
const repoRoot = "../../.."

// docCommands are the commands of the walk-through's ```sh blocks, in order (internal/doccmd
// reads them as cmd/simrun's test reads README.md's and the other pages').
func docCommands(t *testing.T) []doccmd.Command {
	commands, err := doccmd.Read(filepath.Join(repoRoot, "docs/replay.md"))
	require.NoError(t, err)
	require.NotEmpty(t, commands)
	return commands
}

// The walk-through of docs/replay.md runs as written, in order, from the repository's root: the
// fault server, chat's production runs (one with a defect planted), check, replay, shrink and
// repro, each exiting as the document says. Its files go to a temporary folder in place of
// incident/; `go run` is the binaries built once (chat, chatsim, simrun), so that the commands
// time what they do, not the compiler. It builds two mutants: skipped with -short.
func TestReplayWalkThroughRuns(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("builds chat and chatsim with a mutant planted")
	}
	root, err := filepath.Abs(repoRoot)
	require.NoError(t, err)
	work := t.TempDir()
	bin := filepath.Join(work, "bin")
	for name, pkg := range map[string]string{"simrun": "./cmd/simrun", "chat": "./examples/chat", "chatsim": "./examples/chat/chatsim"} {
		build := exec.Command("go", "build", "-o", filepath.Join(bin, name), pkg)
		build.Dir = root
		out, err := build.CombinedOutput()
		require.NoError(t, err, "go build %s: %s", pkg, out)
	}
	incident := filepath.Join(work, "incident") + "/"
	var script strings.Builder
	script.WriteString("set -u\n")
	for i, c := range docCommands(t) {
		if c.NotRun != "" {
			continue
		}
		line := strings.NewReplacer(
			"go run ./cmd/simrun", filepath.Join(bin, "simrun"),
			"go run ./examples/chat/chatsim", filepath.Join(bin, "chatsim"),
			"go run ./examples/chat", filepath.Join(bin, "chat"),
			"incident/", incident,
		).Replace(c.Text)
		line = strings.Replace(line, "mkdir -p incident", "mkdir -p "+incident, 1)
		fmt.Fprintf(&script, "%s\n", line)
		if strings.Contains(line, "&") || strings.HasPrefix(line, "until ") || strings.HasPrefix(line, "kill ") {
			continue
		}
		fmt.Fprintf(&script, "code=$?; if [ $code -ne %d ]; then echo \"docs/replay.md command %d exited $code, not %d: %s\" >&2; exit 97; fi\n",
			c.Code, i+1, c.Code, strings.ReplaceAll(c.Text, `"`, `\"`))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	run := exec.CommandContext(ctx, "bash", "-c", script.String())
	run.Dir = root
	var stdout, stderr bytes.Buffer
	run.Stdout, run.Stderr = &stdout, &stderr
	err = run.Run()
	require.NoError(t, err, "the walk-through:\n%s\nstdout:\n%s\nstderr:\n%s", script.String(), stdout.String(), stderr.String())
	out := stdout.String()
	assert.Equal(t, 2, strings.Count(out, "the log matches the incident's, event for event"), "both replays write their incident's log again:\n%s", out)
	assert.Contains(t, out, "replay: delay-in-window")
	_, err = os.Stat(filepath.Join(incident, "delay-in-window-chat-incident.json"))
	assert.NoError(t, err)
}
