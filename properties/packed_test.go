package properties

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// Owners appending in any interleaving to one pool, sized right or too small, each get exactly
// what plain appends would have given them, and never see another's elements.
func TestAppendPackedIsAppend(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		owners := rapid.IntRange(1, 4).Draw(t, "owners")
		order := rapid.SliceOf(rapid.IntRange(0, owners-1)).Draw(t, "appends")
		pool := make([]int, 0, rapid.IntRange(0, len(order)).Draw(t, "pool"))
		packed, plain := make([][]int, owners), make([][]int, owners)
		for i, o := range order {
			packed[o] = appendPacked(&pool, packed[o], i)
			plain[o] = append(plain[o], i)
			for k := range owners {
				require.Equal(t, len(plain[k]), len(packed[k]), "owner %d", k)
				if len(plain[k]) > 0 {
					require.Equal(t, plain[k], packed[k], "owner %d after append %d", k, i)
				}
			}
		}
	})
}
