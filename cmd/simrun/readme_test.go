package main

import (
	"os"
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
	for _, f := range faults.Catalogue() {
		assert.Contains(t, readme, "`"+f.Name+"`", "fault")
	}
	for _, p := range properties.Catalogue() {
		assert.Contains(t, readme, "`"+p.Name+"`", "property")
	}
	for _, name := range sim.ScenarioNames() {
		assert.Contains(t, readme, "`"+name+"`", "scenario")
	}
	for _, key := range []string{"seeds", "violations", "violationsByProperty", "failingSeeds", "schedulesPerSecond", "simSecondsPerWallSecond", "faultCoverage", "outcomeCoverage", "digest", "slowestSeeds"} {
		assert.Contains(t, readme, "`"+key+"`", "summary key")
	}
	assert.Contains(t, readme, "go run ./cmd/simrun ")
	assert.Contains(t, readme, "go test ./...")
}
