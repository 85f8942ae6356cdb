package harness

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// productionRuntimeFile is the one file of the harness allowed real goroutines and timers: it is
// the production implementation of the Runtime seam.
const productionRuntimeFile = "runtime_production.go"

// forbiddenTimeFuncs read or wait on the wall clock; the harness must use its injected Clock and
// Runtime instead, or the simulator cannot control time.
var forbiddenTimeFuncs = map[string]bool{
	"Now": true, "Sleep": true, "After": true, "AfterFunc": true, "NewTimer": true,
	"Tick": true, "NewTicker": true, "Since": true, "Until": true,
}

// nondeterminismIn lists, for one Go source, every go statement, select statement, call to the
// time package's clock functions and use of a global random source.
func nondeterminismIn(t *testing.T, filename string, src any) []string {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, filename, src, 0)
	require.NoError(t, err)
	imports := map[string]string{} // local name → import path
	for _, spec := range file.Imports {
		path, _ := strconv.Unquote(spec.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if spec.Name != nil {
			name = spec.Name.Name
		}
		imports[name] = path
	}
	var found []string
	report := func(n ast.Node, what string) {
		found = append(found, fset.Position(n.Pos()).String()+": "+what)
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			report(n, "go statement")
		case *ast.SelectStmt:
			report(n, "select statement")
		case *ast.SelectorExpr:
			pkg, ok := n.X.(*ast.Ident)
			if !ok {
				return true
			}
			switch imports[pkg.Name] {
			case "time":
				if forbiddenTimeFuncs[n.Sel.Name] {
					report(n, "time."+n.Sel.Name)
				}
			case "math/rand", "math/rand/v2":
				if n.Sel.Name != "New" && n.Sel.Name != "NewSource" && n.Sel.Name != "NewPCG" && n.Sel.Name != "Rand" && n.Sel.Name != "Source" {
					report(n, "global random rand."+n.Sel.Name)
				}
			case "crypto/rand":
				if filepath.Base(filename) != "random.go" {
					report(n, "crypto/rand."+n.Sel.Name)
				}
			}
		}
		return true
	})
	return found
}

// The harness must reach goroutines, timers, the clock and randomness only through what is
// injected, so that the simulator controls all of it. The one exception is the production
// runtime; random.go may read OS entropy once, to seed the production default source.
func TestHarnessUsesNoGoSelectWallClockOrGlobalRandom(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == productionRuntimeFile {
			continue
		}
		checked++
		assert.Empty(t, nondeterminismIn(t, f, nil), "%s must not use these directly", f)
	}
	assert.Greater(t, checked, 10)
}

// The check itself must be able to fail.
func TestNondeterminismCheckCatchesEachKind(t *testing.T) {
	src := `package harness
import (
	"time"
	r "math/rand"
	"crypto/rand"
)
func bad(c chan int) {
	go func() {}()
	select { case <-c: }
	_ = time.Now()
	time.Sleep(1)
	<-time.After(1)
	_ = r.Intn(3)
	_ = r.New(r.NewSource(1))
	rand.Read(nil)
}`
	found := nondeterminismIn(t, "bad.go", src)
	assert.Len(t, found, 7, "%v", found)
	_, err := os.Stat(productionRuntimeFile)
	require.NoError(t, err, "the exemption names a file that exists")
}
