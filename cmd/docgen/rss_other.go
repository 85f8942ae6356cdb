//go:build !unix

package main

import "os"

// maxRSSMB is not known off unix: 0.
func maxRSSMB(*os.ProcessState) float64 { return 0 }
