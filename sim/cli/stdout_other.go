//go:build !unix

package cli

// stdoutClosed cannot be told here: the runtime opens nothing in place of a closed output.
func stdoutClosed() bool { return false }
