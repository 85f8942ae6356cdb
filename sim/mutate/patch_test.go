package mutate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const original = `package p

func f(n int) int {
	if n > 0 {
		return n
	}
	return 0
}

func g() {}
`

// A mutant as `git diff` writes it, with its header.
const offByOne = `Property: positive-stays
Doc: f keeps 0 as well

diff --git a/p/p.go b/p/p.go
index 1111111..2222222 100644
--- a/p/p.go
+++ b/p/p.go
@@ -1,7 +1,7 @@
 package p
 
 func f(n int) int {
-	if n > 0 {
+	if n >= 0 {
 		return n
 	}
 	return 0
`

func TestParseReadsTheHeaderAndTheDiff(t *testing.T) {
	m, err := Parse("off-by-one", offByOne)
	require.NoError(t, err)
	assert.Equal(t, "positive-stays", m.Property)
	assert.Equal(t, "f keeps 0 as well", m.Doc)
	require.Len(t, m.Files, 1)
	assert.Equal(t, "p/p.go", m.Files[0].Path)
	require.Len(t, m.Files[0].Hunks, 1)
	h := m.Files[0].Hunks[0]
	assert.Equal(t, 1, h.OldStart)
	assert.Len(t, h.Old, 7)
	assert.Contains(t, h.New, "\tif n >= 0 {")
}

func TestApplyPlantsTheMutantInACopy(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "p", "p.go")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(original), 0o644))
	m, err := Parse("off-by-one", offByOne)
	require.NoError(t, err)
	files, err := m.Apply(root)
	require.NoError(t, err)
	assert.Equal(t, strings.Replace(original, "n > 0", "n >= 0", 1), string(files[path]))
	kept, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, original, string(kept), "the working tree is never written")
}

// Lines added above the hunk move it down: it is found where it went.
func TestAHunkFollowsItsLinesWhenTheyMove(t *testing.T) {
	moved := strings.Replace(original, "package p\n", "package p\n\n// A comment added later.\n// Another.\n", 1)
	hunks := []Hunk{{OldStart: 4, Old: []string{"\tif n > 0 {", "\t\treturn n"}, New: []string{"\tif n >= 0 {", "\t\treturn n"}}}
	out, err := apply(moved, hunks)
	require.NoError(t, err)
	assert.Equal(t, strings.Replace(moved, "n > 0", "n >= 0", 1), out)
}

// A hunk whose lines changed does not apply, and says which line it looked for.
func TestAHunkWhoseLinesChangedDoesNotApply(t *testing.T) {
	changed := strings.Replace(original, "n > 0", "n > 1", 1)
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "p"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "p", "p.go"), []byte(changed), 0o644))
	m, err := Parse("off-by-one", offByOne)
	require.NoError(t, err)
	_, err = m.Apply(root)
	require.ErrorIs(t, err, ErrNotApplied)
	assert.Contains(t, err.Error(), "mutant off-by-one does not apply to p/p.go")
	assert.Contains(t, err.Error(), "its lines are not in the file any more")
}

func TestAPatchMayCreateAFile(t *testing.T) {
	text := "Property: x\n\n--- /dev/null\n+++ b/p/new.go\n@@ -0,0 +1,3 @@\n+package p\n+\n+func h() {}\n"
	m, err := Parse("adds-h", text)
	require.NoError(t, err)
	require.True(t, m.Files[0].Created)
	root := t.TempDir()
	files, err := m.Apply(root)
	require.NoError(t, err)
	assert.Equal(t, "package p\n\nfunc h() {}\n", string(files[filepath.Join(root, "p", "new.go")]))

	require.NoError(t, os.MkdirAll(filepath.Join(root, "p"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "p", "new.go"), []byte("package p\n"), 0o644))
	_, err = m.Apply(root)
	assert.ErrorContains(t, err, "it creates p/new.go, which exists")
}

func TestAMutantMayNameTheMainItIsBuiltInto(t *testing.T) {
	m, err := Parse("off-by-one", "Main: ./cmd/big\n"+offByOne)
	require.NoError(t, err)
	assert.Equal(t, "./cmd/big", m.Main)
	assert.Equal(t, "./cmd/big", m.MainOr("./cmd/small"))
	m, err = Parse("off-by-one", offByOne)
	require.NoError(t, err)
	assert.Equal(t, "./cmd/small", m.MainOr("./cmd/small"), "no Main: the run's")
}

func TestBadPatchesAreRefusedWithTheirLine(t *testing.T) {
	for name, tc := range map[string]struct{ text, want string }{
		"no diff":         {"Property: x\njust words\n", "no diff"},
		"no +++":          {"--- a/p.go\n@@ -1 +1 @@\n-a\n+b\n", "is not followed by a +++ line"},
		"no hunk":         {"--- a/p.go\n+++ b/p.go\n", "a file section with no hunk"},
		"short hunk":      {"--- a/p.go\n+++ b/p.go\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n", "the hunk ends early"},
		"bad header":      {"--- a/p.go\n+++ b/p.go\n@@ -x +1 @@\n-a\n+b\n", "bad line number"},
		"stray line":      {"--- a/p.go\n+++ b/p.go\n@@ -1,2 +1,2 @@\n a\n*b\n", "is not a context, removed or added line"},
		"escaping path":   {"--- a/../p.go\n+++ b/../p.go\n@@ -1 +1 @@\n-a\n+b\n", "not a path inside the module"},
		"upper-case name": {"", "use lower-case letters"},
		"main outside":    {"Main: ../other/cmd\n--- a/p.go\n+++ b/p.go\n@@ -1 +1 @@\n-a\n+b\n", "a package path inside the module"},
		"main not a path": {"Main: github.com/x/y\n--- a/p.go\n+++ b/p.go\n@@ -1 +1 @@\n-a\n+b\n", "a package path inside the module"},
	} {
		t.Run(name, func(t *testing.T) {
			mutantName := "m"
			if name == "upper-case name" {
				mutantName = "Bad_Name"
			}
			m, err := Parse(mutantName, tc.text)
			if err == nil {
				_, err = m.Apply(t.TempDir())
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestSelectNamesWhatThereIs(t *testing.T) {
	all := []Mutant{{Name: "a"}, {Name: "b"}}
	picked, err := Select(all, []string{"b"})
	require.NoError(t, err)
	assert.Equal(t, "b", picked[0].Name)
	_, err = Select(all, []string{"c"})
	assert.EqualError(t, err, "mutate: no mutant named c (there are: a, b)")
}
