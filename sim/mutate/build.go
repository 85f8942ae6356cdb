package mutate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/turnsim/turnsim/internal/atomicfile"
	"github.com/turnsim/turnsim/internal/procgroup"
)

// Build compiles mainPackage (a package path or ./path, resolved in root) with the mutant
// planted through `go build -overlay`: the mutated files are written under work, never over the
// originals, so a normal build of the same tree contains no trace of any mutant. It returns the
// binary's path (in work).
func Build(m Mutant, root, mainPackage, work string) (string, error) {
	overlayPath, err := WriteOverlay(m, root, work)
	if err != nil {
		return "", err
	}
	binary := filepath.Join(work, "mutant")
	if runtime.GOOS == "windows" {
		binary += ".exe"
	}
	cmd := exec.Command(goCommand(), "build", "-overlay", overlayPath, "-o", binary, mainPackage)
	cmd.Dir = root
	procgroup.Follower(cmd)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("mutate: mutant %s does not build (go build -overlay … %s in %s): %v\n%s", m.Name, mainPackage, root, err, lastLines(stderr.String(), 20))
	}
	return binary, nil
}

// WriteOverlay writes the mutant's files and an overlay file mapping each original to its
// mutated copy under work, for `go build -overlay` or `go test -overlay`, and returns the
// overlay file's path. Each is written whole or not at all, and a target in work that is not a
// regular file (a symlink planted there) is refused.
func WriteOverlay(m Mutant, root, work string) (string, error) {
	files, err := m.Apply(root)
	if err != nil {
		return "", err
	}
	overlay := struct{ Replace map[string]string }{Replace: map[string]string{}}
	n := 0
	for path, content := range files {
		if content == nil {
			overlay.Replace[path] = "" // deleted
			continue
		}
		n++
		mutated := filepath.Join(work, fmt.Sprintf("%d-%s", n, filepath.Base(path)))
		if err := atomicfile.Write(mutated, content); err != nil {
			return "", fmt.Errorf("mutate: %w", err)
		}
		overlay.Replace[path] = mutated
	}
	data, err := json.Marshal(overlay)
	if err != nil {
		return "", fmt.Errorf("mutate: %w", err)
	}
	overlayPath := filepath.Join(work, "overlay.json")
	if err := atomicfile.Write(overlayPath, data); err != nil {
		return "", fmt.Errorf("mutate: %w", err)
	}
	return overlayPath, nil
}

// goCommand is the go command to build with: the one on PATH, else this toolchain's.
func goCommand() string {
	if path, err := exec.LookPath("go"); err == nil {
		return path
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// ModuleRoot is the root of the Go module dir is in (where its go.mod is).
func ModuleRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("mutate: %w", err)
	}
	for at := abs; ; at = filepath.Dir(at) {
		if _, err := os.Stat(filepath.Join(at, "go.mod")); err == nil {
			return at, nil
		}
		if filepath.Dir(at) == at {
			return "", fmt.Errorf("mutate: %s is not inside a Go module (no go.mod above it): mutants are built from source, so run mutate in the module's tree", abs)
		}
	}
}

// MutantsRoot is the root of the module whose mutants folder (relative to that root) is
// mutants: the nearest folder at or above dir that has a go.mod and that folder. In a workspace
// modules nest (turnsim's cmd/simrun and sim/wire are modules inside its tree), so the nearest
// go.mod alone may be a module without the mutants; when no folder above holds them, it is the
// nearest module's root, so that the error names the folder that is missing there.
func MutantsRoot(dir, mutants string) (string, error) {
	nearest, err := ModuleRoot(dir)
	if err != nil || filepath.IsAbs(mutants) {
		return nearest, err
	}
	for at := nearest; ; at = filepath.Dir(at) {
		if _, err := os.Stat(filepath.Join(at, "go.mod")); err == nil {
			if info, err := os.Stat(filepath.Join(at, filepath.FromSlash(mutants))); err == nil && info.IsDir() {
				return at, nil
			}
		}
		if filepath.Dir(at) == at {
			return nearest, nil
		}
	}
}

// lastLines is the end of a command's output, enough to name what went wrong.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
