//go:build !plantedbugs

package plant

// Available reports whether this build can switch planted bugs on.
const Available = false

// On reports whether the named planted bug is switched on: never, in a normal build.
func On(string) bool { return false }
