package sim

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A user's module imports sim, sim/cli, faults and properties to test its agent; none of them
// may pull a provider SDK into the user's build (compiling one is the costliest step of a cold
// build; README "CI cost"). The real adapters come only with sim/wire, a module of its own, which
// a command imports when it wants them on the wire.
func TestImportingTheSimulatorLinksNoProviderSDK(t *testing.T) {
	const module = "github.com/turnsim/turnsim"
	cmd := exec.Command("go", "list", "-deps", module+"/sim", module+"/sim/cli", module+"/faults", module+"/properties")
	out, err := cmd.Output()
	require.NoError(t, err, "go list -deps")
	for _, p := range strings.Fields(string(out)) {
		for _, sdk := range []string{"github.com/openai/", "github.com/anthropics/", module + "/harness/provider/", WireImport} {
			assert.False(t, strings.HasPrefix(p, sdk), "the simulator's packages link %s", p)
		}
	}
}

// The core module's `go test ./...` compiles no provider SDK (issue 23: one costs 2.7 GiB to
// compile): no package of the core, nor any of its tests, imports one. Under go.work a core file
// could import a package of the SDK modules with no require line, and only this test would see it.
func TestTheCoresTestsCompileNoProviderSDK(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-test", "./...")
	cmd.Dir = ".." // the core module's root
	out, err := cmd.Output()
	require.NoError(t, err, "go list -deps -test ./...")
	packages := strings.Fields(string(out))
	require.Greater(t, len(packages), 100)
	for _, p := range packages {
		for _, sdk := range []string{"github.com/openai/", "github.com/anthropics/"} {
			assert.False(t, strings.HasPrefix(p, sdk), "the core's tests compile %s", p)
		}
	}
}
