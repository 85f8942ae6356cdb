package sim

import (
	"fmt"
	"slices"
	"sync"
)

// registered are the families added with RegisterPolicyFamily, by pointer so each registration
// can be removed on its own.
var (
	registeredMu sync.Mutex
	registered   []*PolicyFamily
)

func init() { extraPolicyFamilies = append(extraPolicyFamilies, registeredFamilies) }

func registeredFamilies() []PolicyFamily {
	registeredMu.Lock()
	defer registeredMu.Unlock()
	families := make([]PolicyFamily, 0, len(registered))
	for _, f := range registered {
		families = append(families, *f)
	}
	return families
}

// RegisterPolicyFamily adds a family to PolicyFamilies and PolicyFamilyByName, so `fuzz-policy
// -policies NAME` can fuzz it: a user's own strategy family, or a test's deliberately unsafe one.
// It returns the function that removes it again (a test's cleanup). A name already known panics:
// two families under one name would make a repeat command ambiguous.
func RegisterPolicyFamily(f PolicyFamily) (unregister func()) {
	for _, known := range PolicyFamilies() {
		if known.Name == f.Name {
			panic(fmt.Sprintf("sim: a policy family named %q is already registered", f.Name))
		}
	}
	entry := &f
	registeredMu.Lock()
	registered = append(registered, entry)
	registeredMu.Unlock()
	return func() {
		registeredMu.Lock()
		defer registeredMu.Unlock()
		registered = slices.DeleteFunc(registered, func(p *PolicyFamily) bool { return p == entry })
	}
}
