package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMemoryLimitGrowsWithWorkersAndYieldsToTheUsers(t *testing.T) {
	two, ok := memoryLimit(2, "")
	assert.True(t, ok)
	assert.EqualValues(t, 20<<20, two, "the measured 20 MiB at 2 workers")
	eight, _ := memoryLimit(8, "")
	assert.EqualValues(t, 32<<20, eight, "each worker adds room for one schedule's live heap")
	_, ok = memoryLimit(2, "64MiB")
	assert.False(t, ok, "a limit the user set is kept")
}
