package cli_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/properties"
	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/sim/cli"
)

func main(agent sim.Agent, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := cli.Main(args, &stdout, &stderr, cli.Options{Agent: agent, Command: "mysim"})
	return code, stdout.String(), stderr.String()
}

type zeroBudget struct{ harness.SeedStrategy }

func (zeroBudget) Budget() int { return 0 }

func TestRefusedAgentIsOneConfigurationError(t *testing.T) {
	agent := sim.Agent{NewStrategy: func() harness.RetryStrategy {
		return zeroBudget{harness.SeedStrategy{Policy: harness.DefaultRetryPolicy()}}
	}}
	code, out, stderr := main(agent, "run", "-seeds", "50")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "RetryStrategy")
	assert.Equal(t, 1, bytes.Count([]byte(stderr), []byte("\n")), "reported once")
}

func TestOwnPropertyFailsRunAndNamesTheBinary(t *testing.T) {
	everyTurn := properties.Define("no-second-turn", "planted: a run has one turn at most", func(r *properties.Run, report *properties.Reporter) {
		for _, e := range r.Log {
			if s, ok := e.Data.(harness.TurnStart); ok && s.Turn == 2 {
				report.Errorf(e.Seq, e.Time, "turn 2 started")
			}
		}
	})
	agent := sim.Agent{Properties: []properties.Property{everyTurn}}
	corpus := t.TempDir()
	code, out, stderr := main(agent, "run", "-seeds", "30", "-json", "-corpus", corpus)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, `"no-second-turn"`)
	assert.Contains(t, stderr, "reproduce: mysim repro -seed ")
	saved, err := filepath.Glob(filepath.Join(corpus, "no-second-turn-seed*.json"))
	require.NoError(t, err)
	assert.NotEmpty(t, saved, "a user's failures are shrunk and kept, as simrun's")

	code, out, _ = main(agent, "properties")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "no-second-turn")
	assert.Contains(t, out, "(the agent's own)")

	code, _, stderr = main(agent, "nope")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `mysim: unknown command "nope"`)
}

func TestPanickingOwnPropertyIsAnInternalError(t *testing.T) {
	broken := properties.Define("broken-check", "panics", func(*properties.Run, *properties.Reporter) { panic("oops") })
	code, _, stderr := main(sim.Agent{Properties: []properties.Property{broken}}, "repro", "-seed", "1")
	assert.Equal(t, 3, code)
	assert.Contains(t, stderr, "internal error: oops")
	assert.Contains(t, stderr, "Reproduce: mysim repro -seed 1")
}

func TestRunTakesShardAndDeterminism(t *testing.T) {
	code, out, stderr := main(sim.Agent{}, "run", "-seeds", "20", "-shard", "2/4", "-check-determinism")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "seeds              5 (from 1, shard 2/4, ")
	code, _, stderr = main(sim.Agent{}, "run", "-shard", "5/4")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "-shard")
}

// mutate needs the command's main package, from Options.Main or -main, and says so; with it, it
// looks for the mutants in the module (mutants/ by default) and names the folder it did not find.
func TestMutateNeedsTheMainPackage(t *testing.T) {
	code, _, stderr := main(sim.Agent{}, "mutate")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "mysim: -main is needed: the main package to build with each mutant")

	code, _, stderr = main(sim.Agent{}, "mutate", "-main", "./cmd/mysim", "-list")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "mutant folder")
	assert.Contains(t, stderr, "/mutants")
}

// run takes simrun's names for the first seed and the shrinking time, which mutate passes.
func TestRunTakesSimrunsFlagNames(t *testing.T) {
	code, out, stderr := main(sim.Agent{}, "run", "-start", "5", "-seeds", "2", "-shrink-time", "1s", "-json")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, `"firstSeed":5`)
}
