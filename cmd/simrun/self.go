package main

import (
	"os"
	"path/filepath"
	"strings"
)

// self is how the user ran this simrun, for the commands it prints (repro lines, bug reports):
// an installed or built binary by the path they typed (os.Args[0]: `simrun`, `./bin/simrun`),
// and a binary `go run` or `go test` built in a temporary folder by `go run ./cmd/simrun`; a
// mutant build (-plant) by the simrun that built it. An installed simrun used
// to print `go run ./cmd/simrun …`, which works only inside turnsim's repository.
func self() string {
	if outer := os.Getenv(selfEnv); outer != "" {
		return outer // a mutant build (-plant): the simrun the user ran built it
	}
	return selfFrom(os.Args[0])
}

func selfFrom(arg0 string) string {
	if strings.Contains(arg0, "go-build") || strings.HasSuffix(filepath.Base(arg0), ".test") {
		return "go run ./cmd/simrun"
	}
	return arg0
}
