//go:build plantedbugs

package plant

import (
	"fmt"
	"sync/atomic"
)

// Available reports whether this build can switch planted bugs on.
const Available = true

var active atomic.Pointer[string]

// On reports whether the named planted bug is switched on.
func On(name string) bool {
	p := active.Load()
	return p != nil && *p == name
}

// Set switches on the named bug for every run in the process ("" switches all off).
func Set(name string) error {
	if name == "" {
		active.Store(nil)
		return nil
	}
	for _, b := range Catalogue {
		if b.Name == name {
			active.Store(&name)
			return nil
		}
	}
	return fmt.Errorf("plant: unknown planted bug %q", name)
}
