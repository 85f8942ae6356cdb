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
	for i := range faults.Count {
		assert.Equal(t, i == 0 || i == faults.Count/2 || i == faults.Count-1, s.has(i), "fault %d", i)
	}
	assert.Equal(t, 3, s.len())
}
