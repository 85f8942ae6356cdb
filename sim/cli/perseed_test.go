package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim"
)

// A PerSeed agent keeps its properties in the Agent PerSeed makes: the commands that name or
// check them read them there (sim.Agent.Seeded), not from the outer Agent, whose are empty.
func TestCommandsReadAPerSeedAgentsOwnProperties(t *testing.T) {
	own := properties.Define("ledger-balanced", "planted: the seed's own ledger balances", func(*properties.Run, *properties.Reporter) {})
	opts := Options{Name: "perseed", Agent: sim.Agent{PerSeed: func() sim.Agent { return sim.Agent{Properties: []properties.Property{own}} }}}
	code, out, errOut := runWith(opts, "properties")
	assert.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "ledger-balanced", "properties lists the seed's agent's own")
	assert.Contains(t, (&cli{opts: opts}).propertyNames(), "ledger-balanced", "shrink -property accepts it")
}
