package sim

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"

	"github.com/turnsim/turnsim/harness"
)

// An outcome kind a sweep keeps is the run's own: ownKind of a kind read in place from bytes the
// next run writes over (as a restart's log is read from the simulated disk) holds none of them.
func TestOwnKindHoldsNoneOfTheBytes(t *testing.T) {
	for _, kind := range []string{harness.EndCompleted, harness.EndMaxTokens, harness.EndAborted, harness.EndError, harness.EndInterrupted, "stranger"} {
		b := []byte(kind)
		owned := ownKind(unsafe.String(&b[0], len(b)))
		clear(b) // what the next run writes into the reused memory
		assert.Equal(t, kind, owned)
	}
}
