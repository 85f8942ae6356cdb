package properties

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The oracles must not read what they judge. properties/ may use the harness's vocabulary (its
// types, its constants: event types, codes, lanes, kinds) and the means of reading a log back
// (ReadJSONL or DecodeJSONL, and ValidateLog, which log-replays judges the log with), but never
// its policy logic or defaults: no package-level variable (DefaultRetryableCodes), no other
// function (DelayWindowMs, ParsePolicyKey, DefaultRetryPolicy, …), no method but the data
// accessors below.

const harnessPath = "github.com/turnsim/turnsim/harness"

// allowedHarnessFuncs are the harness functions properties/ may call.
var allowedHarnessFuncs = map[string]bool{
	"ReadJSONL":   true, // log-replays: the log must decode
	"DecodeJSONL": true, // the same, of a log in memory
	"ValidateLog": true, // log-replays: the decoded log must pass the invariant layer on replay
}

// allowedHarnessMethods are the harness methods properties/ may call, as Type.Method: accessors
// that read data. None decides anything the spec states.
var allowedHarnessMethods = map[string]bool{
	"AssembledMessage.ToolCalls": true, // the tool-call blocks of an assistant message
}

// harnessUsesIn type-checks the package made of files (parsed with fset) and lists every use of
// package harness that properties/ must not make, as "file:line: what".
func harnessUsesIn(fset *token.FileSet, files []*ast.File, imp types.Importer) ([]string, error) {
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: imp}
	if _, err := conf.Check("github.com/turnsim/turnsim/properties", fset, files, info); err != nil {
		return nil, err
	}
	var idents []*ast.Ident
	for ident, obj := range info.Uses {
		if obj.Pkg() != nil && obj.Pkg().Path() == harnessPath && forbiddenUse(obj) != "" {
			idents = append(idents, ident)
		}
	}
	sort.Slice(idents, func(i, j int) bool { return idents[i].Pos() < idents[j].Pos() })
	found := make([]string, len(idents))
	for i, ident := range idents {
		found[i] = fmt.Sprintf("%s: %s", fset.Position(ident.Pos()), forbiddenUse(info.Uses[ident]))
	}
	return found, nil
}

// forbiddenUse says why a use of obj (an object of package harness) is forbidden, or "".
func forbiddenUse(obj types.Object) string {
	switch obj := obj.(type) {
	case *types.TypeName, *types.Const:
		return ""
	case *types.Var:
		if obj.IsField() {
			return ""
		}
		return "harness." + obj.Name() + " is a package variable: a default or a table the oracle must state itself"
	case *types.Func:
		recv := obj.Type().(*types.Signature).Recv()
		if recv == nil {
			if allowedHarnessFuncs[obj.Name()] {
				return ""
			}
			return "harness." + obj.Name() + " is harness logic: restate what the spec says instead"
		}
		name := receiverName(recv.Type()) + "." + obj.Name()
		if allowedHarnessMethods[name] {
			return ""
		}
		return "method harness." + name + " is harness logic: restate what the spec says instead"
	}
	return fmt.Sprintf("harness.%s (%T) is not a type or a constant", obj.Name(), obj)
}

// receiverName names a method's receiver type without pointer or package.
func receiverName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := t.(*types.Named); ok {
		return n.Obj().Name()
	}
	return t.String()
}

// sourceImporter type-checks imported packages from source, once per test binary.
var sourceImporter = sync.OnceValues(func() (*token.FileSet, types.Importer) {
	fset := token.NewFileSet()
	return fset, importer.ForCompiler(fset, "source", nil)
})

func TestPropertiesUseNoHarnessPolicyLogicOrDefaults(t *testing.T) {
	fset, imp := sourceImporter()
	paths, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var files []*ast.File
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		require.NoError(t, err)
		files = append(files, f)
	}
	require.Greater(t, len(files), 8)
	found, err := harnessUsesIn(fset, files, imp)
	require.NoError(t, err)
	assert.Empty(t, found, "properties/ must state the spec itself, not read it from the harness")
}

// The checker itself must be able to fail: each kind of forbidden use in a small package.
func TestIndependenceCheckCatchesEachKind(t *testing.T) {
	fset, imp := sourceImporter()
	src := `package properties
import "github.com/turnsim/turnsim/harness"
func bad(p harness.RetryPolicy, r harness.LlmRetry) {
	_ = harness.DefaultRetryableCodes           // a default
	_, _ = harness.DelayWindowMs(p, r.Retry)     // the formula
	_, _ = harness.ParsePolicyKey(r.PolicyKey)   // the key parser
	_ = p.PolicyKey()                            // a policy's method
	_ = r.Failure.HasRetryAfter()                // a decision helper on a data type
	_ = harness.DefaultRetryPolicy
}
func good(events []harness.Event, m harness.AssistantMessage) {
	_ = harness.CodeTimeout
	_ = harness.ModeNormal
	_ = harness.TypeToolCall
	_ = m.Message.ToolCalls()
	_ = harness.ValidateLog(events)
	var _ harness.RetryPolicy
}`
	f, err := parser.ParseFile(fset, "bad.go", src, 0)
	require.NoError(t, err)
	found, err := harnessUsesIn(fset, []*ast.File{f}, imp)
	require.NoError(t, err)
	require.Len(t, found, 6, "%v", found)
	for i, what := range []string{"DefaultRetryableCodes", "DelayWindowMs", "ParsePolicyKey", "RetryPolicy.PolicyKey", "Failure.HasRetryAfter", "DefaultRetryPolicy"} {
		assert.Contains(t, found[i], what)
	}
}
