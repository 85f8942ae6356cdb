package main

import (
	"os"
	"path/filepath"
	"strings"
)

// self is how the user ran this simrun, for the commands it prints (repro lines, bug reports):
// an installed or built binary by the path they typed (os.Args[0]: `simrun`, `./bin/simrun`),
// and a binary `go run` or `go test` built in a temporary folder by `go run [flags] ./cmd/simrun`
// (flags: the build tags that binary needs, e.g. "-tags plantedbugs"). An installed simrun used
// to print `go run ./cmd/simrun …`, which works only inside turnsim's repository.
func self(goRunFlags string) string {
	return selfFrom(os.Args[0], goRunFlags)
}

func selfFrom(arg0, goRunFlags string) string {
	if strings.Contains(arg0, "go-build") || strings.HasSuffix(filepath.Base(arg0), ".test") {
		if goRunFlags != "" {
			return "go run " + goRunFlags + " ./cmd/simrun"
		}
		return "go run ./cmd/simrun"
	}
	return arg0
}
