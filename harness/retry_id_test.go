package harness

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newRetryID replaces uuid.NewRandomFromReader(...).String() to keep its bytes off the heap: from
// the same source it must give the same ids, draw the same bytes, and fail the same way.
func TestNewRetryIDIsUUIDNewRandomFromReader(t *testing.T) {
	mine, theirs := rand.New(rand.NewSource(7)), rand.New(rand.NewSource(7))
	p := &llmRetry{random: &lockedRandom{r: mine}}
	for range 100 {
		got, err := p.newRetryID()
		require.NoError(t, err)
		want, err := uuid.NewRandomFromReader(theirs)
		require.NoError(t, err)
		assert.Equal(t, want.String(), got)
	}
	assert.Equal(t, theirs.Int63(), mine.Int63(), "both drew the same bytes")

	_, want := uuid.NewRandomFromReader(bytes.NewReader(make([]byte, 5)))
	_, got := (&llmRetry{random: &lockedRandom{r: shortRandom{bytes.NewReader(make([]byte, 5))}}}).newRetryID()
	require.Error(t, want)
	assert.Equal(t, want, got, "a short read fails as NewRandomFromReader does")
}

// shortRandom is a Random whose bytes run out.
type shortRandom struct{ *bytes.Reader }

func (shortRandom) Float64() float64 { return 0 }
