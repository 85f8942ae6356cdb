package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"example.com/weatheragent/weathersim"
	"github.com/turnsim/turnsim/sim/cli"
)

func weathersimRun(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := cli.Main(args, &stdout, &stderr, cli.Options{Agent: weathersim.Agent(), Command: "go run ./cmd/weathersim"})
	return code, stdout.String(), stderr.String()
}

// toolSeed is the first seed whose simulated model calls the forecast tool, and its repro output:
// which one it is changes whenever the fault catalogue draws plans anew.
func toolSeed(t *testing.T) (string, string) {
	t.Helper()
	for seed := 1; seed <= 100; seed++ {
		code, out, stderr := weathersimRun("repro", "-seed", strconv.Itoa(seed))
		require.Equal(t, 0, code, stderr)
		if strings.Contains(out, "tool/call") && strings.Contains(out, "forecast") {
			return strconv.Itoa(seed), out
		}
	}
	t.Fatal("no seed of 1 to 100 calls the forecast tool")
	return "", ""
}

// TestOwnPropertyAndToolShowInSimrunOutput: the agent's property is listed and judged, its tool
// is what the simulated model calls.
func TestOwnPropertyAndToolShowInSimrunOutput(t *testing.T) {
	code, out, _ := weathersimRun("properties")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "forecast-names-its-city")

	seed, out := toolSeed(t)
	assert.Contains(t, out, "no violation")

	code, out, stderr := weathersimRun("run", "-seeds", "200", "-json")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, `"seeds":200`)

	log := filepath.Join(t.TempDir(), "session.jsonl")
	code, _, stderr = weathersimRun("repro", "-seed", seed, "-log", log)
	require.Equal(t, 0, code, stderr)
	code, out, _ = weathersimRun("check", log)
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, " events, ok")
	_, err := os.Stat(log)
	assert.NoError(t, err)
}
