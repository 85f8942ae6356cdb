package mutate

import (
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
