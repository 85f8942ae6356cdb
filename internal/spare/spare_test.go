package spare

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEmptiedClearsAndKeepsRoom(t *testing.T) {
	b := []*int{new(int), new(int), new(int)}
	e := Emptied(b)
	assert.Empty(t, e)
	assert.Equal(t, 3, cap(e), "the room is kept")
	assert.Nil(t, b[0], "what the earlier run left is cleared")
	assert.Nil(t, b[2])

	past := []*int{new(int), new(int)}
	Emptied(past[:1])
	assert.Nil(t, past[1], "what lies past the length it was handed, too")
}

func TestEmptiedDropsALargeBuffer(t *testing.T) {
	assert.Nil(t, Emptied(make([]int, 1, Max+1)))
	assert.NotNil(t, Emptied(make([]int, 1, Max)))
	assert.Nil(t, Emptied[int](nil))
}
