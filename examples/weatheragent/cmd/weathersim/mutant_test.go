package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/sim"
)

// TestMutantThroughOwnSimrun: with the mutant planted (go test -overlay, as in
// weathersim/mutant_test.go), run finds it under the agent's own property, names this binary in
// the repro line, shrinks it into the corpus, and the saved schedule reproduces it.
func TestMutantThroughOwnSimrun(t *testing.T) {
	sim.RequireMutant(t, "cancelled-answers-empty-forecast", "go run ./cmd/weathersim")
	corpus := t.TempDir()
	code, out, stderr := weathersimRun("run", "-seeds", "200", "-corpus", corpus, "-shrink-time", "10s")
	require.Equal(t, 1, code, out+stderr)
	assert.Contains(t, out, "forecast-names-its-city")
	assert.Contains(t, stderr, "reproduce: go run ./cmd/weathersim repro -seed ")
	files, err := filepath.Glob(filepath.Join(corpus, "forecast-names-its-city-seed*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	code, out, _ = weathersimRun("repro", files[0])
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "forecast-names-its-city")
}
