package mutate

import (
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every one of turnsim's mutants still applies to the code it targets, names the property that
// must catch it, and says what it breaks: a mutant that no longer applies fails here, by name,
// before CI spends a build on it. (`simrun mutate` in CI then builds and hunts every one.)
func TestTurnsimsMutantsApply(t *testing.T) {
	root, err := ModuleRoot(".")
	require.NoError(t, err)
	mutants, err := Load(filepath.Join(root, "internal", "mutants"))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(mutants), 52, "every planted bug carried over")
	for _, m := range mutants {
		t.Run(m.Name, func(t *testing.T) {
			assert.NotEmpty(t, m.Property, "the property that must catch it")
			assert.NotEmpty(t, m.Doc, "what it breaks")
			files, err := m.Apply(root)
			require.NoError(t, err)
			for path, content := range files {
				assert.True(t, strings.HasPrefix(path, root), path)
				assert.NotEmpty(t, content, path)
			}
		})
	}
}

// Every mutant is built into a main that links the code it breaks: hunt (what mutate builds
// turnsim's mutants into) links no provider adapter, so a mutant of an adapter or of the wire
// must name ./cmd/simrun/huntwire in its header, or it would survive every seed unseen.
func TestTurnsimsMutantsAreBuiltIntoAMainThatLinksThem(t *testing.T) {
	root, err := ModuleRoot(".")
	require.NoError(t, err)
	mutants, err := Load(filepath.Join(root, "internal", "mutants"))
	require.NoError(t, err)
	const module = "github.com/turnsim/turnsim"
	linked := map[string]map[string]bool{}
	deps := func(main string) map[string]bool {
		if linked[main] == nil {
			cmd := exec.Command("go", "list", "-deps", main)
			cmd.Dir = root
			out, err := cmd.Output()
			require.NoError(t, err, "go list -deps %s", main)
			linked[main] = map[string]bool{}
			for _, p := range strings.Fields(string(out)) {
				linked[main][p] = true
			}
		}
		return linked[main]
	}
	for _, m := range mutants {
		main := m.MainOr("./cmd/simrun/hunt")
		for _, f := range m.Files {
			if strings.HasSuffix(f.Path, "_test.go") {
				continue
			}
			pkg := module + "/" + path.Dir(f.Path)
			assert.True(t, deps(main)[pkg], "mutant %s breaks %s, which %s does not link (name a Main that does)", m.Name, pkg, main)
		}
	}
	assert.False(t, deps("./cmd/simrun/hunt")[module+"/sim/wire"], "hunt links the wire: every mutant build pays for the provider SDKs")
}
