package mutate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A command run in a module nested in the workspace (turnsim's cmd/simrun) finds the mutants of
// the module above that holds them; a module with its own mutants (a user's example in the same
// workspace) finds its own; with none anywhere, the nearest module, so the error names it.
func TestMutantsRootFindsTheModuleThatHoldsTheMutants(t *testing.T) {
	root := t.TempDir()
	mkdir := func(parts ...string) string {
		dir := filepath.Join(append([]string{root}, parts...)...)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		return dir
	}
	module := func(dir string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644))
	}
	module(root)
	mkdir("internal", "mutants")
	nested := mkdir("cmd", "simrun")
	module(nested)
	deeper := mkdir("cmd", "simrun", "hunt")
	user := mkdir("examples", "user")
	module(user)
	mkdir("examples", "user", "mutants")

	for _, c := range []struct{ from, mutants, want string }{
		{nested, "internal/mutants", root},
		{deeper, "internal/mutants", root},
		{root, "internal/mutants", root},
		{user, "mutants", user},
		{nested, "nowhere", nested},
		{nested, filepath.Join(root, "internal", "mutants"), nested},
	} {
		got, err := MutantsRoot(c.from, c.mutants)
		require.NoError(t, err)
		assert.Equal(t, c.want, got, "from %s, mutants %s", c.from, c.mutants)
	}
	_, err := MutantsRoot(os.TempDir(), "internal/mutants")
	assert.Error(t, err, "no go.mod above the temp folder")
}
