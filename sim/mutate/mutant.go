package mutate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Mutant is one deliberate defect, kept as a patch outside the code it breaks: the property
// that must catch it, a line saying what it breaks, and the unified diff that plants it.
type Mutant struct {
	// Name is the file's name without .patch: what -mutants selects and the table shows.
	Name string
	// Property is the property that must catch the mutant ("" if any may).
	Property string
	// Doc says in one line what the mutant breaks.
	Doc string
	// Main, if set, is the main package this mutant is built into instead of the run's
	// (Options.Main), relative to the module root: a mutant of code that only a bigger main
	// links (turnsim's provider adapters, which only ./cmd/simrun/huntwire links) names it, so
	// the rest are built into a main that compiles and links faster.
	Main string
	// File is where the mutant was read from.
	File  string
	Files []FilePatch
}

// Extension is what a mutant file's name ends with.
const Extension = ".patch"

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// Parse reads a mutant file: a header of `Key: value` lines (Property, Doc, Main; other lines
// are free text, for the reader), then a unified diff as `git diff` writes it, paths relative to the
// module root.
func Parse(name, text string) (Mutant, error) {
	m := Mutant{Name: name}
	if !nameRE.MatchString(name) {
		return m, fmt.Errorf("mutate: mutant name %q: use lower-case letters, digits and dashes", name)
	}
	header, _, found := strings.Cut("\n"+text, "\n--- ")
	if !found {
		return m, fmt.Errorf("mutate: mutant %s: no diff (a `--- a/FILE` line) after its header", name)
	}
	for _, line := range splitLines(header) {
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "property":
			m.Property = strings.TrimSpace(value)
		case "doc":
			m.Doc = strings.TrimSpace(value)
		case "main":
			m.Main = strings.TrimSpace(value)
			if !strings.HasPrefix(m.Main, "./") || strings.Contains(m.Main+"/", "/../") {
				return m, fmt.Errorf("mutate: mutant %s: Main %q: write a package path inside the module, as ./cmd/NAME", name, m.Main)
			}
		}
	}
	files, err := parseUnifiedDiff(text)
	if err != nil {
		return m, fmt.Errorf("mutate: mutant %s: %w", name, err)
	}
	m.Files = files
	return m, nil
}

// MainOr is the main package the mutant is built into: its own Main, else fallback.
func (m Mutant) MainOr(fallback string) string {
	if m.Main != "" {
		return m.Main
	}
	return fallback
}

// Load reads every *.patch file in dir, sorted by name.
func Load(dir string) ([]Mutant, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*"+Extension))
	if err != nil {
		return nil, fmt.Errorf("mutate: %w", err)
	}
	if len(paths) == 0 {
		if _, statErr := os.Stat(dir); statErr != nil {
			return nil, fmt.Errorf("mutate: mutant folder %s: %w", dir, statErr)
		}
		return nil, fmt.Errorf("mutate: no mutant (*%s file) in %s", Extension, dir)
	}
	sort.Strings(paths)
	mutants := make([]Mutant, 0, len(paths))
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("mutate: %w", err)
		}
		m, err := Parse(strings.TrimSuffix(filepath.Base(path), Extension), string(data))
		if err != nil {
			return nil, err
		}
		m.File = path
		mutants = append(mutants, m)
	}
	return mutants, nil
}

// Select keeps the named mutants, in the order named; an unknown name is an error that lists
// what there is.
func Select(all []Mutant, names []string) ([]Mutant, error) {
	if len(names) == 0 {
		return all, nil
	}
	byName := map[string]Mutant{}
	for _, m := range all {
		byName[m.Name] = m
	}
	var picked []Mutant
	var unknown []string
	for _, n := range names {
		if m, ok := byName[n]; ok {
			picked = append(picked, m)
		} else {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) > 0 {
		known := make([]string, 0, len(all))
		for _, m := range all {
			known = append(known, m.Name)
		}
		return nil, fmt.Errorf("mutate: no mutant named %s (there are: %s)", strings.Join(unknown, ", "), strings.Join(known, ", "))
	}
	return picked, nil
}

// ErrNotApplied marks a mutant whose patch no longer fits the code it targets.
var ErrNotApplied = errors.New("does not apply")

// Apply plants the mutant in a copy: it returns, for each file the patch touches (an absolute
// path under root), the file's mutated content (nil for a deleted file). The working tree is
// never written.
func (m Mutant) Apply(root string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, fp := range m.Files {
		if strings.HasPrefix(fp.Path, "/") || strings.Contains("/"+fp.Path+"/", "/../") {
			return nil, fmt.Errorf("mutate: mutant %s %w: %s is not a path inside the module", m.Name, ErrNotApplied, fp.Path)
		}
		path := filepath.Join(root, filepath.FromSlash(fp.Path))
		original, err := os.ReadFile(path)
		switch {
		case fp.Created && err == nil:
			return nil, fmt.Errorf("mutate: mutant %s %w: it creates %s, which exists", m.Name, ErrNotApplied, fp.Path)
		case fp.Created:
			original = nil
		case err != nil:
			return nil, fmt.Errorf("mutate: mutant %s %w: %v", m.Name, ErrNotApplied, err)
		}
		if fp.Deleted {
			out[path] = nil
			continue
		}
		mutated, err := apply(string(original), fp.Hunks)
		if err != nil {
			return nil, fmt.Errorf("mutate: mutant %s %w to %s: %v", m.Name, ErrNotApplied, fp.Path, err)
		}
		out[path] = []byte(mutated)
	}
	return out, nil
}
