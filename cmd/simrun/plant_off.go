//go:build !plantedbugs

package main

import (
	"fmt"
	"io"
)

// plantedBuild tells whether this build has the planted bugs, so that a repeat command names
// the build tag it needs.
const plantedBuild = false

// setPlant refuses -plant: this build has no planted bugs.
func setPlant(name string) error {
	if name == "" {
		return nil
	}
	return fmt.Errorf("-plant %q: this build has no planted bugs; build with -tags plantedbugs", name)
}

func runPlants(_ []string, _, stderr io.Writer) int {
	return usageError(stderr, "plants: this build has no planted bugs; run 'go run -tags plantedbugs ./cmd/simrun plants'")
}
