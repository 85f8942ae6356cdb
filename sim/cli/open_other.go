//go:build !unix

package cli

import "os"

// openNonBlocking opens path for reading (no FIFOs to wait for here).
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }
