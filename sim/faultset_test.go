package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/turnsim/turnsim/faults"
)

// A faultSet holds each fault once, however often it struck, and tells every fault of the
// catalogue apart.
func TestFaultSet(t *testing.T) {
	var s faultSet
	assert.Equal(t, 0, s.len())
	for _, i := range []int{0, faults.Count / 2, faults.Count - 1, faults.Count / 2, 0} {
		s.add(i)
	}
	assert.Equal(t, 3, s.len())
	names := faults.Names()
	assert.Equal(t, []string{names[0], names[faults.Count/2], names[faults.Count-1]}, s.appendNames(nil))
}
