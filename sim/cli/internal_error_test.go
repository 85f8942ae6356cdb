package cli

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim"
)

// A panic in a command exits 3, says it is a bug, and names the command that reproduces it.
func TestPanicIsAnInternalErrorNotAUsageError(t *testing.T) {
	opts := turnsimOptions()
	opts.Commands = []Command{{Name: "break-here", Run: func([]string, io.Writer, io.Writer) int { panic("planted: an invariant broke") }}}
	code, _, errOut := runWith(opts, "break-here", "-x", "it's")
	assert.Equal(t, exitInternal, code)
	assert.Contains(t, errOut, "simrun: internal error: planted: an invariant broke")
	assert.Contains(t, errOut, "This is a bug in simrun")
	assert.Contains(t, errOut, `Reproduce: go run ./cmd/simrun break-here -x 'it'\''s'`)
}

// A panic while a command works on one seed names the seed.
func TestAnInternalErrorNamesTheSeed(t *testing.T) {
	broken := properties.Define("broken-check", "panics", func(*properties.Run, *properties.Reporter) { panic("oops") })
	opts := turnsimOptions()
	opts.Agent = sim.Agent{Properties: []properties.Property{broken}}
	code, _, errOut := runWith(opts, "repro", "-seed", "42")
	assert.Equal(t, exitInternal, code)
	assert.Contains(t, errOut, "simrun: internal error: ")
	assert.Contains(t, errOut, "It happened on seed 42.")
	assert.Contains(t, errOut, "Reproduce: go run ./cmd/simrun repro -seed 42")
}
