package harness

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

// TestToolSetFindsEveryToolBothWays checks a set scanned (few tools) and a set indexed (more
// than toolSetScanMax) alike: every tool is found as registered, an unknown name is not, names
// keep registration order, and a name registered twice is refused.
func TestToolSetFindsEveryToolBothWays(t *testing.T) {
	run := func(context.Context, string) (string, error) { return "", nil }
	for _, n := range []int{1, 3, toolSetScanMax, toolSetScanMax + 1, 3 * toolSetScanMax} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			var tools []Tool
			for i := range n {
				tools = append(tools, Tool{Name: "tool" + strconv.Itoa(i), Parallel: i%2 == 0, Run: run})
			}
			s, err := newToolSet(tools)
			if err != nil {
				t.Fatal(err)
			}
			if (s.index != nil) != (n > toolSetScanMax) {
				t.Fatalf("%d tools: indexed %v", n, s.index != nil)
			}
			tools[0].Name = "changed by the caller" // the set keeps its own copy
			for i := range n {
				name := "tool" + strconv.Itoa(i)
				got, ok := s.lookup(name)
				if !ok || got.Name != name || got.Parallel != (i%2 == 0) || s.names[i] != name {
					t.Fatalf("%d tools: lookup(%q) = %+v, %v; names[%d] = %q", n, name, got, ok, i, s.names[i])
				}
			}
			if _, ok := s.lookup("frobnicate"); ok {
				t.Fatalf("%d tools: an unknown name was found", n)
			}
			tools[0].Name = "tool0"
			_, err = newToolSet(append(tools, Tool{Name: "tool" + strconv.Itoa(n-1), Run: run}))
			if err == nil || !strings.Contains(err.Error(), "is registered twice") {
				t.Fatalf("%d tools and a duplicate: err = %v", n, err)
			}
		})
	}
	if s, err := newToolSet(nil); err != nil || s.names != nil {
		t.Fatalf("no tools: names %v, err %v (a request's Tools stays nil without tools)", s.names, err)
	}
}
