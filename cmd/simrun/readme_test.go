package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim"
)

// The README documents every fault, property, scenario and summary key; this keeps it in step
// with the code.
func TestReadmeNamesEveryCatalogueEntry(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	readme := string(data)
	docs, err := filepath.Glob("../../docs/*.md") // reference pages the README links to
	require.NoError(t, err)
	for _, path := range docs {
		page, err := os.ReadFile(path)
		require.NoError(t, err)
		readme += string(page)
	}
	for _, f := range faults.Catalogue() {
		assert.Contains(t, readme, "`"+f.Name+"`", "fault")
	}
	for _, p := range properties.Catalogue() {
		assert.Contains(t, readme, "`"+p.Name+"`", "property")
	}
	for _, name := range sim.ScenarioNames() {
		assert.Contains(t, readme, "`"+name+"`", "scenario")
	}
	for _, key := range []string{"seeds", "violations", "violationsByProperty", "failingSeeds", "schedulesPerSecond", "simSecondsPerWallSecond", "faultCoverage", "outcomeCoverage", "digest", "slowestSeeds", "determinismChecked"} {
		assert.Contains(t, readme, "`"+key+"`", "summary key")
	}
	assert.Contains(t, readme, "go run ./cmd/simrun ")
	assert.Contains(t, readme, "go test ./...")
	assert.Contains(t, readme, "3 an internal error of simrun itself", "exit code 3")
	assert.Contains(t, readme, "Prerequisites: Go 1.26")
	for _, limit := range []string{"4 MiB", "1 MiB", "64 MiB per line", "1,000 followups per agent", "10,000 turns per herd", "1,000 seeds per policy"} {
		assert.Contains(t, readme, limit, "every size limit is documented")
	}
}
