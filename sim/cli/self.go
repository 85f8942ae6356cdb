package cli

import (
	"path/filepath"
	"regexp"
	"strings"
)

// cachedExecutable matches a binary `go run` took from the build cache, wherever GOCACHE is:
// GOCACHE/xx/<64 hex digits>-d/NAME.
var cachedExecutable = regexp.MustCompile(`[/\\][0-9a-f]{2}[/\\][0-9a-f]{64}-d[/\\][^/\\]+$`)

// selfFrom is how the user ran this binary, for the commands it prints (repro lines, bug
// reports): an installed or built binary by the path they typed (os.Args[0]: `simrun`,
// `./bin/mysim`), and a binary `go run` or `go test` built (in a go-build temporary folder, or
// taken from the build cache) by `go run MAIN` (`go run ./cmd/NAME` when Main is not given). An
// installed binary printing `go run …` would work only inside its repository, and a build
// cache's path nowhere.
func selfFrom(arg0, mainPackage string) string {
	built := strings.Contains(arg0, "go-build") || strings.HasSuffix(filepath.Base(arg0), ".test") || cachedExecutable.MatchString(arg0)
	if !built {
		return arg0
	}
	if mainPackage == "" {
		mainPackage = "./cmd/" + strings.TrimSuffix(strings.TrimSuffix(filepath.Base(arg0), ".exe"), ".test")
	}
	return "go run " + mainPackage
}
