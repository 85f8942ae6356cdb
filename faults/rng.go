package faults

import (
	"math/rand"

	"github.com/turnsim/turnsim/internal/splitmix"
)

// NewRand returns a random source for one stream of one schedule (splitmix.NewRand): exported
// here because DrawPlan's callers, turnsim's own and a user's, draw with it, and internal/splitmix
// is out of their reach.
func NewRand(seed int64) *rand.Rand { return splitmix.NewRand(seed) }
