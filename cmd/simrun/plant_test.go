//go:build plantedbugs

package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A failing run prints, for each failing seed, one command that reproduces it; that command
// then shows the timeline and the same violation.
func TestPlantedFailureGivesOneCommandThatReproducesIt(t *testing.T) {
	defer setPlant("")
	code, _, errOut := simrun("run", "-seeds", "100", "-plant", "wait-before-retry-record")
	require.Equal(t, exitViolation, code)
	assert.Contains(t, errOut, "durable-before-wait")
	command := regexp.MustCompile(`reproduce: go run -tags plantedbugs ./cmd/simrun (repro -seed \d+ -plant wait-before-retry-record)`).FindStringSubmatch(errOut)
	require.NotNil(t, command, errOut)

	code, out, _ := simrun(strings.Fields(command[1])...)
	assert.Equal(t, exitViolation, code)
	assert.Contains(t, out, "durable-before-wait")
	assert.Contains(t, out, "turn/start 1")
}

func TestPlantsListsEveryBug(t *testing.T) {
	code, out, _ := simrun("plants")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "wait-before-retry-record")
	code, _, errOut := simrun("run", "-seeds", "1", "-plant", "no-such-bug")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, `unknown planted bug "no-such-bug"`)
}
