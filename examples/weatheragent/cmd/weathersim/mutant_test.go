//go:build planted

package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlantedDefectThroughOwnSimrun: run finds the planted defect under the agent's own
// property, names this binary in the repro line, shrinks it into the corpus, and the saved
// schedule reproduces it.
func TestPlantedDefectThroughOwnSimrun(t *testing.T) {
	corpus := t.TempDir()
	code, out, stderr := weathersimRun("run", "-seeds", "200", "-corpus", corpus, "-shrink-budget", "10s")
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
